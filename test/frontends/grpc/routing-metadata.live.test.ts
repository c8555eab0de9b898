// Routing headers as gRPC call metadata: a session id keeps a conversation on one worker, a worker
// id pins the request, a bad value is INVALID_ARGUMENT naming the header. The router's dispatches are
// read on the request-events channel.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { dispatchesDuring } from '../../support/dispatches.js';
import { serveInProcess } from '../../support/in-process.js';
import { makeClient, textInput, texts, unary } from './harness.js';

const MODEL = 'Qwen/Qwen3-0.6B';

function metadata(entries: Record<string, string>): grpc.Metadata {
  const m = new grpc.Metadata();
  for (const [k, v] of Object.entries(entries)) m.set(k, v);
  return m;
}

test('ModelInfer: session metadata binds one worker, a worker id pins, a bad header value is INVALID_ARGUMENT', async () => {
  const { service } = await serveInProcess(['--kserve-grpc-server', '--num-workers', '3', '--router-session-affinity-ttl-secs', '60', '--speedup-ratio', '100']);
  const client = makeClient(service.grpc!.grpcPort);
  const infer = (meta: Record<string, string>, prompt: string) =>
    unary<{ outputs: { contents: { bytes_contents: Buffer[] } }[] }>(
      client,
      'ModelInfer',
      { model_name: MODEL, inputs: [textInput(prompt)], parameters: { max_tokens: { int64_param: 3 } } },
      metadata(meta),
    );
  try {
    const sessions: Record<string, string>[] = [{ 'x-dynamo-session-id': 'grpc-conversation' }, { 'thread-id': 'codex-thread' }];
    for (const meta of sessions) {
      const seen = await dispatchesDuring(async () => {
        for (let turn = 0; turn < 4; turn++) {
          const res = await infer(meta, `turn ${turn}`);
          assert.equal(texts(res.outputs[0]!).length, 1);
        }
      });
      assert.equal(seen.length, 4);
      assert.equal(new Set(seen).size, 1, `one worker for ${JSON.stringify(meta)}`);
    }
    const free = await dispatchesDuring(async () => {
      for (let i = 0; i < 3; i++) await infer({}, 'hi');
    });
    assert.equal(new Set(free).size, 3, 'without a session round-robin spreads the calls');

    const target = free[1]!;
    const pinned = await dispatchesDuring(async () => {
      for (let i = 0; i < 3; i++) await infer({ 'x-worker-instance-id': target.toString() }, 'pinned');
    });
    assert.deepEqual(pinned, [target, target, target]);

    await assert.rejects(infer({ 'x-dynamo-dp-rank': 'two' }, 'hi'), (err: grpc.ServiceError) => {
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.match(err.details, /header x-dynamo-dp-rank must be an unsigned integer/);
      return true;
    });
  } finally {
    client.close();
    await service.stop();
  }
});
