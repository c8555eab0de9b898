import assert from 'node:assert/strict';
import { test } from 'node:test';
import { anthropicErrorReply, anthropicStreamErrorJson } from '../../../src/frontends/http/error-envelope.js';
import {
  CancelledError,
  InternalError,
  NotFoundError,
  NotImplementedError,
  OverloadedError,
  UnavailableError,
  ValidationError,
} from '../../../src/protocols/index.js';

test('errors before an Anthropic stream: the statuses of the OpenAI routes, Anthropic types, the overload status configurable', () => {
  const cases: [unknown, number, string, string][] = [
    [new ValidationError('max_tokens: field required'), 400, 'invalid_request_error', 'max_tokens: field required'],
    [new NotFoundError('Model not found'), 404, 'not_found_error', 'Model not found'],
    [new NotImplementedError('no'), 501, 'api_error', 'no'],
    [new UnavailableError('Service is not ready'), 503, 'overloaded_error', 'Service is not ready'],
    [new OverloadedError(), 529, 'overloaded_error', 'Service temporarily overloaded'],
    [new Error('disk /srv/secret failed'), 500, 'api_error', 'Internal server error'],
  ];
  for (const [err, status, type, message] of cases) {
    assert.deepEqual(anthropicErrorReply(err, 529), { status, body: { type: 'error', error: { type, message } } });
  }
  assert.equal(anthropicErrorReply(new OverloadedError(), 503).status, 503);
});

test('errors during an Anthropic stream keep request and overload messages, hide the rest', () => {
  const data = (err: unknown) => JSON.parse(anthropicStreamErrorJson(err)) as unknown;
  assert.deepEqual(data(new ValidationError('bad')), { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } });
  assert.deepEqual(data(new OverloadedError()), { type: 'error', error: { type: 'overloaded_error', message: 'Service temporarily overloaded' } });
  for (const err of [new InternalError('engine error: /srv/secret'), new CancelledError(), new Error('x')]) {
    assert.deepEqual(data(err), { type: 'error', error: { type: 'api_error', message: 'Internal server error' } });
  }
});
