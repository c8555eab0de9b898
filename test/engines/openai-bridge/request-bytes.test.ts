import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestBytes, type RequestBody } from '../../../src/engines/openai-bridge/request-bytes.js';

const HEAD_START = 'POST /v1/completions HTTP/1.1\r\ncontent-type: application/json\r\ncontent-length: ';
const HEAD_END = '\r\nHost: up:8000\r\nConnection: keep-alive\r\n\r\n';

/** What the request must be: the head, then the fields' JSON with `prompt` last. */
function expected(fields: Record<string, unknown>, ids: readonly number[] | null, headEnd = HEAD_END): Buffer {
  const body = Buffer.from(JSON.stringify(ids ? { ...fields, prompt: ids } : fields), 'utf8');
  return Buffer.concat([Buffer.from(`${HEAD_START}${body.length}${headEnd}`, 'latin1'), body]);
}

const bodyOf = (fields: Record<string, unknown>, ids: readonly number[] | null): RequestBody => ({ json: JSON.stringify(fields), ids });

test('a token-in prompt is written after the fields, as JSON writes it, with the content length of the body', () => {
  const fields = { model: 'm', stream: true, stream_options: { include_usage: true }, max_tokens: 4, stop: ['é✓ 🌊'], return_token_ids: true };
  const holey = new Array<number>(5);
  for (let i = 0; i < 5; i++) holey[i] = [0, 9, 10, 151_643, 2_147_483_647][i]!;
  for (const ids of [[1, 2, 3], holey, [], [7], Array.from({ length: 3000 }, (_, i) => (i * 7919) % 200_000)]) {
    assert.deepEqual(new RequestBytes().build(HEAD_START, HEAD_END, bodyOf(fields, ids)), expected(fields, ids));
  }
});

test('ids that are not int32s, a body without ids, a body without fields, a latin1 header', () => {
  const fields = { model: 'm' };
  for (const ids of [[1.5, 2], [-1, 3], [2 ** 31], [2 ** 32], [1e21, Number.NaN], [-0]]) {
    assert.deepEqual(new RequestBytes().build(HEAD_START, HEAD_END, bodyOf(fields, ids)), expected(fields, ids));
  }
  assert.deepEqual(new RequestBytes().build(HEAD_START, HEAD_END, bodyOf({ model: 'm', prompt: 'text é' }, null)), expected({ model: 'm', prompt: 'text é' }, null));
  assert.deepEqual(new RequestBytes().build(HEAD_START, HEAD_END, bodyOf({}, [5, 6])), expected({}, [5, 6]));
  const latin1End = '\r\nx-name: caf\u00e9\r\n\r\n';
  assert.deepEqual(new RequestBytes().build(HEAD_START, latin1End, bodyOf(fields, [1])), expected(fields, [1], latin1End));
});

test('a buffer is reused only after a write that left nothing queued', () => {
  const bytes = new RequestBytes();
  const first = bytes.build(HEAD_START, HEAD_END, bodyOf({ model: 'first' }, [1, 2, 3]));
  const kept = Buffer.from(first);
  bytes.sent(first.length);
  const second = bytes.build(HEAD_START, HEAD_END, bodyOf({ model: 'second' }, [4, 5, 6]));
  assert.deepEqual(first, kept, 'a request still queued keeps its bytes');
  assert.deepEqual(second, expected({ model: 'second' }, [4, 5, 6]));
  bytes.sent(0);
  const third = bytes.build(HEAD_START, HEAD_END, bodyOf({ model: 'third' }, [7]));
  assert.equal(third.buffer, second.buffer, 'the buffer the kernel took is used again');
  assert.deepEqual(third, expected({ model: 'third' }, [7]));
});
