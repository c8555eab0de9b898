// The package's `startKserveFrontend`: the KServe gRPC frontend with its optional side HTTP server for
// /metrics, /health and /live, composed in launch/ over one model manager and metrics registry.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, startKserveFrontend } from '../../../src/index.js';
import { makeClient, tensorModel, unary } from './harness.js';

const base = { host: '127.0.0.1', port: 0, logger: createLogger('error') };

test('with metricsPort the side server serves /metrics, /health and /live until stop', async () => {
  const frontend = await startKserveFrontend({ ...base, metricsPort: 0, tensorModels: [tensorModel('echo')] });
  const side = `http://127.0.0.1:${frontend.metricsPort}`;
  const client = makeClient(frontend.grpcPort);
  try {
    assert.ok(frontend.metricsPort! > 0);
    assert.deepEqual(await unary(client, 'ModelReady', { name: 'echo' }), { ready: true });
    assert.equal((await fetch(`${side}/live`)).status, 200);
    assert.equal((await fetch(`${side}/health`)).status, 200);
    // One registry: the side server renders the gRPC frontend's metrics.
    assert.match(await (await fetch(`${side}/metrics`)).text(), /grpc_server_handled_total\{[^}]*grpc_method="ModelReady"/);
  } finally {
    client.close();
    await frontend.stop();
  }
  await assert.rejects(fetch(`${side}/live`), 'the side server stops with the frontend');
});

test('without metricsPort there is no side server', async () => {
  const frontend = await startKserveFrontend({ ...base, metricsPort: null });
  try {
    assert.equal(frontend.metricsPort, undefined);
    assert.ok(frontend.grpcPort > 0);
  } finally {
    await frontend.stop();
  }
});
