// RequestLifecycle publishes one request's events on the diagnostics channels, in order, once
// each outcome, and only to subscribers of its own scope.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestLifecycle, ResponseFold } from '../../src/pipeline/index.js';
import { CancelledError, ValidationError, type RequestScope } from '../../src/protocols/index.js';
import { recordRequestEvents } from '../support/request-events.js';

const description = (scope: RequestScope) =>
  ({ scope, id: 'r1', model: 'm', endpoint: 'completions', requestType: 'stream' }) as const;

test('start, first token, tokens and end with the fold usage, in order; nothing after the end', () => {
  const scope = { name: 'a' };
  const events = recordRequestEvents(scope);
  const request = RequestLifecycle.start(description(scope));
  const fold = new ResponseFold({ promptTokens: 4, collectText: false, request });
  request.tokens(0);
  fold.step({ index: 0, text: 'a', token_ids: [1, 2], tokens: [], log_probs: null, finish_reason: null, engine_finish_reason: null, stop_reason: null });
  request.tokens(1);
  request.succeed();
  request.tokens(1);
  request.fail(new Error('late'));
  events.stop();
  assert.deepEqual(events.names(), ['start', 'firstToken', 'token', 'token', 'end']);
  const [start] = events.of('start');
  assert.deepEqual({ ...start!.request, startedAt: 0 }, { ...description(scope), startedAt: 0 });
  const tokens = events.of('token');
  assert.deepEqual(tokens.map((t) => t.tokens), [2, 1]);
  assert.equal(tokens[0]!.interval, null);
  assert.ok(tokens[1]!.interval! >= 0);
  assert.ok(events.of('firstToken')[0]!.ttft >= 0);
  const [end] = events.of('end');
  assert.deepEqual(end!.usage, { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  assert.ok(end!.duration >= 0);
  for (const [, event] of events.seen) assert.equal(event.request, start!.request);
});

test('errors carry their kind; a cancelled kind is a cancel; an end without a fold has no usage', () => {
  const scope = { name: 'b' };
  const events = recordRequestEvents(scope);
  RequestLifecycle.start(description(scope)).fail(new ValidationError('bad'));
  RequestLifecycle.start(description(scope)).fail(new Error('boom'));
  RequestLifecycle.start(description(scope)).fail(new Error('busy'), 'overload');
  RequestLifecycle.start(description(scope)).fail(new CancelledError());
  RequestLifecycle.start(description(scope)).cancel();
  RequestLifecycle.start(description(scope)).succeed();
  events.stop();
  assert.deepEqual(
    events.names().filter((name) => name !== 'start'),
    ['error:validation', 'error:internal', 'error:overload', 'cancel', 'cancel', 'end'],
  );
  assert.equal(events.of('end')[0]!.usage, undefined);
});

test('a subscription sees only its own scope, and nothing once unsubscribed', () => {
  const mine = { name: 'mine' };
  const other = { name: 'mine' };
  const events = recordRequestEvents(mine);
  RequestLifecycle.start(description(other)).succeed();
  assert.equal(events.seen.length, 0);
  RequestLifecycle.start(description(mine)).succeed();
  assert.equal(events.seen.length, 2);
  events.stop();
  RequestLifecycle.start(description(mine)).succeed();
  assert.equal(events.seen.length, 2);
});
