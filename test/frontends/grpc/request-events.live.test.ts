// The gRPC frontend's requests publish the same events as HTTP's: completions with their tokens
// and usage, tensor requests with start and end only, errors with their kind. Without a scope of
// its own the frontend counts its requests into its registry, token histograms included.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RequestScope } from '../../../src/protocols/index.js';
import { recordRequestEvents, type EventRecorder } from '../../support/request-events.js';
import { boolInput, completionsModel, FailureEngine, SplitEngine, startHarness, streamInfer, tensorModel, textInput, type Harness } from './harness.js';

let h: Harness;
let events: EventRecorder;

before(async () => {
  const requestScope: RequestScope = { name: 'grpc-test' };
  events = recordRequestEvents(requestScope);
  h = await startHarness({
    completions: [completionsModel('split', new SplitEngine()), completionsModel('failure', new FailureEngine())],
    tensors: [tensorModel('tensor')],
    requestScope,
  });
});
after(async () => {
  events.stop();
  await h.close();
});

test('a streamed completion: start, first token, a token event per step, end with the usage', async () => {
  events.seen.length = 0;
  const res = await streamInfer(h.client, [{ model_name: 'split', inputs: [textInput('dummy input'), boolInput('streaming', true)] }]);
  assert.equal(res.error, undefined);
  const names = events.names();
  assert.equal(names[0], 'start');
  assert.equal(names[1], 'firstToken');
  assert.equal(names.at(-1), 'end');
  const tokens = events.of('token');
  assert.ok(tokens.length >= 2);
  const [start] = events.of('start');
  assert.equal(start!.request.endpoint, 'completions');
  assert.equal(start!.request.requestType, 'stream');
  const usage = events.of('end')[0]!.usage!;
  assert.equal(usage.completion_tokens, tokens.reduce((sum, t) => sum + t.tokens, 0));
  assert.equal(usage.prompt_tokens, usage.completion_tokens);
});

test('unary completions and tensor requests; a failing engine ends with an internal error', async () => {
  events.seen.length = 0;
  await h.call('ModelInfer', { model_name: 'tensor', inputs: [textInput('x')] });
  assert.deepEqual(events.names(), ['start', 'end']);
  assert.equal(events.of('start')[0]!.request.endpoint, 'tensor');
  assert.equal(events.of('start')[0]!.request.requestType, 'unary');
  assert.equal(events.of('end')[0]!.usage, undefined);

  events.seen.length = 0;
  await assert.rejects(h.call('ModelInfer', { model_name: 'failure', inputs: [textInput('x')] }));
  assert.deepEqual(events.names(), ['start', 'error:internal']);
});

test('without a scope given, the frontend counts its requests, with time to first token', async () => {
  const own = await startHarness({ completions: [completionsModel('split', new SplitEngine())] });
  try {
    await own.call('ModelInfer', { model_name: 'split', inputs: [textInput('dummy input')] });
    const text = await own.frontend.metrics.render();
    assert.match(text, /dynamo_frontend_requests_total\{model="split",endpoint="completions",request_type="unary",status="success",error_type=""\} 1/);
    assert.match(text, /dynamo_frontend_time_to_first_token_seconds_count\{model="split"\} 1/);
  } finally {
    await own.close();
  }
});
