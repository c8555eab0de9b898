// File discovery + NATS request plane + ZMQ event plane (the default with file discovery), and the
// frontend's namespace scoping and --model-name override.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { RouterEvent } from '../../src/protocols/index.js';
import { closeNatsConnections, FileDiscoveryBackend, subscribeKvEvents, ZmqEventPlane } from '../../src/runtime/index.js';
import { startNats, type InfraServer } from '../support/infra-servers.js';
import { postJson } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { complete, modelIds, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

let nats: InfraServer;
let kvRoot: string;
let scoped: { proc: RunningProcess; baseUrl: string };
let renamed: { proc: RunningProcess; baseUrl: string };
let workerA: RunningProcess;
let workerB: RunningProcess;
let backend: FileDiscoveryBackend;
let events: ZmqEventPlane;
const kvEvents: RouterEvent[] = [];

before(async () => {
  nats = await startNats();
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-file-kv-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'nats', NATS_SERVER: nats.url, ETCD_LEASE_TTL: '2' };
  scoped = await startFrontendProcess(env, ['--namespace-prefix', 'myns-dgd']);
  renamed = await startFrontendProcess(env, ['--namespace', 'myns-dgd2', '--model-name', 'renamed']);
  workerA = startMockerProcess({ ...env, DYN_NAMESPACE: 'myns-dgd' }, ['--model-name', 'model-a']);
  workerB = startMockerProcess({ ...env, DYN_NAMESPACE: 'myns-dgd2' }, ['--model-name', 'model-b']);
  backend = new FileDiscoveryBackend({ root: kvRoot, leaseTtlSecs: 2 });
  events = new ZmqEventPlane({ backend, lease: () => backend.grantLease(), advertiseHost: '127.0.0.1' });
  await subscribeKvEvents(events, 'myns-dgd', 'backend', (e) => kvEvents.push(e));
});

after(async () => {
  await stopAll([scoped?.proc, renamed?.proc, workerA, workerB]);
  await events?.close();
  await backend?.close();
  await closeNatsConnections();
  await nats?.dispose();
  rmSync(kvRoot, { recursive: true, force: true });
});

test('a frontend scoped to prefix myns-dgd serves myns-dgd models, not myns-dgd2 ones (404)', async () => {
  await waitForModel(scoped.baseUrl, 'model-a', scoped.proc);
  await waitForModel(renamed.baseUrl, 'renamed', renamed.proc);
  assert.deepEqual(await modelIds(scoped.baseUrl), ['model-a']);
  const res = await postJson(scoped.baseUrl, '/v1/chat/completions', { model: 'model-b', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(res.status, 404);
  const { status, body } = await complete(scoped.baseUrl, 'model-a');
  assert.equal(status, 200, JSON.stringify(body));
});

test('--model-name on the frontend serves the discovered model under that name, over the NATS request plane', async () => {
  assert.deepEqual(await modelIds(renamed.baseUrl), ['renamed']);
  const { status, body } = await complete(renamed.baseUrl, 'renamed', 3);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.choices![0]!.finish_reason, 'length');
});

test('KV events arrive over the ZMQ event plane, found through discovery', async () => {
  const deadline = Date.now() + 15_000;
  while (kvEvents.length === 0) {
    assert.ok(Date.now() < deadline, 'no KV event over ZMQ');
    await complete(scoped.baseUrl, 'model-a', 2, `${Math.random()} ${'many words here '.repeat(30)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok('stored' in (kvEvents[0]!.event.data as object));
});

test('file discovery: a kill -9 worker stops refreshing its files and its model disappears', async () => {
  workerB.proc.kill('SIGKILL');
  const deadline = Date.now() + 10_000;
  while ((await modelIds(renamed.baseUrl)).length > 0) {
    assert.ok(Date.now() < deadline, 'model still listed after the TTL');
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal((await complete(renamed.baseUrl, 'renamed')).status, 404);
});
