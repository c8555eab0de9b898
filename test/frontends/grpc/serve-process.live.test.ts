// Whole process: `dynamo-ts serve --kserve-grpc-server` with the mocker, gRPC on --http-port and
// /metrics on --grpc-metrics-port; bearer auth enforced.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { freePort, startProcess } from '../../support/processes.js';
import { makeClient, textInput, texts, unary } from './harness.js';

test('serve --kserve-grpc-server answers ModelInfer from the mocker, with auth and metrics', async () => {
  const [grpcPort, metricsPort] = [await freePort(), await freePort()];
  const proc = startProcess([
    'serve', '--kserve-grpc-server', '--http-host', '127.0.0.1', '--http-port', String(grpcPort),
    '--grpc-metrics-port', String(metricsPort), '--grpc-auth-token', 'sekret', '--speedup-ratio', '100',
  ]);
  const client = makeClient(grpcPort);
  const auth = new grpc.Metadata();
  auth.set('authorization', 'Bearer sekret');
  try {
    let ready = false;
    const deadline = Date.now() + 90_000;
    while (!ready && Date.now() < deadline && proc.proc.exitCode === null) {
      ready = await unary<{ ready: boolean }>(client, 'ServerReady', {}, auth).then((r) => r.ready, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(ready, proc.output());
    await assert.rejects(unary(client, 'ServerLive', {}), (e: grpc.ServiceError) => e.code === grpc.status.UNAUTHENTICATED);
    const res = await unary<any>(client, 'ModelInfer', {
      model_name: 'Qwen/Qwen3-0.6B',
      id: 'req-1',
      inputs: [textInput('Hello there')],
      parameters: { max_tokens: { int64_param: 5 }, ignore_eos: { bool_param: true } },
    }, auth);
    assert.equal(res.id, 'req-1');
    assert.deepEqual(texts(res.outputs[1]), ['length']);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(metrics, /dynamo_frontend_requests_total\{[^}]*model="Qwen\/Qwen3-0.6B"[^}]*endpoint="completions"[^}]*\} 1/);
    assert.match(metrics, /grpc_server_handled_total\{[^}]*grpc_code="UNAUTHENTICATED"/);
  } finally {
    client.close();
    await proc.stop();
  }
});
