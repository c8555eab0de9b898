// `x-dynamo-meta-*` gRPC metadata reaches the engine's context (prefix stripped, binary
// keys skipped) on the tensor and completions paths; too many or too large entries are refused.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { EngineClient, GenerateContext, LLMEngineOutput } from '../../../src/protocols/index.js';
import { completionsModel, startHarness, textInput, type Harness } from './harness.js';

const seen: { tensor?: GenerateContext['metadata'] | null; completions?: GenerateContext['metadata'] | null } = {};

class RecordingEngine implements EngineClient {
  async *generate(_req: unknown, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    seen.completions = ctx.metadata ?? null;
    yield { token_ids: [9707], finish_reason: 'stop' };
  }
}

let h: Harness;
before(async () => {
  h = await startHarness({
    completions: [completionsModel('recorder', new RecordingEngine())],
    tensors: [
      {
        name: 'tensor-recorder',
        engine: {
          async *generate(request, ctx) {
            seen.tensor = ctx.metadata ?? null;
            yield { model: request.model, tensors: request.tensors, parameters: {} };
          },
        },
      },
    ],
  });
});
after(() => h.close());

const tensorRequest = {
  model_name: 'tensor-recorder',
  inputs: [{ name: 'x', datatype: 'INT32', shape: [1], contents: { int_contents: [1] } }],
};
const completionRequest = { model_name: 'recorder', inputs: [textInput('hi')] };

function meta(entries: Record<string, string>): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(entries)) md.add(k, v);
  return md;
}

test('prefixed metadata reaches tensor and completions engines, prefix stripped', async () => {
  const md = meta({ 'x-dynamo-meta-tenant': 'acme', 'x-dynamo-meta-trace-id': 'abc', 'x-other': 'not passed' });
  md.add('x-dynamo-meta-blob-bin', Buffer.from([1, 2, 3]));
  await h.call('ModelInfer', tensorRequest, md);
  assert.deepEqual(seen.tensor, { tenant: 'acme', 'trace-id': 'abc' });
  await h.call('ModelInfer', completionRequest, md);
  assert.deepEqual(seen.completions, { tenant: 'acme', 'trace-id': 'abc' });

  await h.call('ModelInfer', completionRequest);
  assert.equal(seen.completions, null);
});

test('more than 64 entries or 64 KiB is INVALID_ARGUMENT', async () => {
  const many = meta(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-dynamo-meta-k${i}`, 'v'])));
  await assert.rejects(h.call('ModelInfer', tensorRequest, many), (e: grpc.ServiceError) => {
    assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(e.details, 'metadata headers exceed the limit of 64 entries');
    return true;
  });
  const big = meta({ 'x-dynamo-meta-a': 'x'.repeat(40_000), 'x-dynamo-meta-b': 'y'.repeat(30_000) });
  await assert.rejects(h.call('ModelInfer', completionRequest, big), (e: grpc.ServiceError) => {
    assert.equal(e.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(e.details, 'metadata headers exceed the limit of 65536 bytes');
    return true;
  });
});
