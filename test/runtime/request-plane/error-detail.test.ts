import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InternalError, NotFoundError, OverloadedError, ValidationError, WorkerLostError } from '../../../src/protocols/index.js';
import { errorDetailOf, errorFromDetail } from '../../../src/runtime/index.js';

test('a client error keeps its kind and message across the wire', () => {
  for (const err of [new ValidationError('max_tokens is too large'), new NotFoundError('no such model'), new OverloadedError('busy')]) {
    const back = errorFromDetail(errorDetailOf(err), 'worker error');
    assert.equal(back.kind, err.kind);
    assert.equal(back.httpStatus, err.httpStatus);
    assert.equal(back.message, err.message);
  }
});

test('a lost upstream stays a lost worker; anything else is internal with its context', () => {
  const lost = errorFromDetail(errorDetailOf(new WorkerLostError('upstream http://x:1 dropped the stream')), 'worker error');
  assert.ok(lost instanceof WorkerLostError);
  assert.match(lost.message, /Disconnected: upstream http:\/\/x:1 dropped the stream/);
  const internal = errorFromDetail(errorDetailOf(new InternalError('disk failed')), 'worker error');
  assert.equal(internal.kind, 'internal');
  assert.equal(internal.message, 'worker error: disk failed');
  assert.equal(errorFromDetail('[internal] forged', 'worker error').kind, 'internal', 'only client kinds are taken from the text');
  assert.equal(errorFromDetail('[nonsense] x', 'worker error').message, 'worker error: [nonsense] x');
});
