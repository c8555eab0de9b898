// kill -9 of a worker under every router mode, with real processes (etcd discovery, TCP request
// plane, NATS events): the instance leaves routing as soon as one request finds it lost, long
// before its lease (30 s here) would expire, so at most that one request fails per frontend.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ROUTER_MODES } from '../../src/protocols/index.js';
import { closeNatsConnections, decodeEndpointInstance, INSTANCES_BUCKET, watchRecords } from '../../src/runtime/index.js';
import { EtcdDiscoveryBackend } from '../../src/runtime/discovery/etcd-backend.js';
import { startEtcd, startNats, type InfraServer } from '../support/infra-servers.js';
import { eventually } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { complete, MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

const LEASE_TTL_SECS = 30;
const MODES = ROUTER_MODES.filter((m) => m !== 'direct');

let etcd: InfraServer;
let nats: InfraServer;
let workers: RunningProcess[] = [];
const frontends = new Map<string, { proc: RunningProcess; baseUrl: string }>();
const registered = new Set<string>();
let watcher: EtcdDiscoveryBackend;

before(async () => {
  [etcd, nats] = await Promise.all([startEtcd(), startNats()]);
  const env = { DYN_DISCOVERY_BACKEND: 'etcd', ETCD_ENDPOINTS: etcd.url, NATS_SERVER: nats.url, ETCD_LEASE_TTL: String(LEASE_TTL_SECS) };
  workers = [0, 1, 2].map(() => startMockerProcess(env));
  for (const mode of MODES) frontends.set(mode, await startFrontendProcess(env, ['--router-mode', mode]));
  watcher = new EtcdDiscoveryBackend({ endpoints: [etcd.url], leaseTtlSecs: LEASE_TTL_SECS });
  await watchRecords(watcher, `${INSTANCES_BUCKET}/`, decodeEndpointInstance, {
    onPut: (key) => registered.add(key),
    onDelete: (key) => registered.delete(key),
  });
});

after(async () => {
  await stopAll([...[...frontends.values()].map((f) => f.proc), ...workers]);
  await watcher?.close();
  await closeNatsConnections();
  await Promise.all([etcd?.dispose(), nats?.dispose()]);
});

test('kill -9 under every router mode: the next requests go to live workers only', async () => {
  for (const [mode, f] of frontends) {
    await waitForModel(f.baseUrl, MODEL, f.proc, 120_000).catch(async (err: Error) => {
      const models = await fetch(`${f.baseUrl}/v1/models`).then((r) => r.text(), (e: Error) => e.message);
      throw new Error(`${mode}: ${err.message} ${models} ${f.proc.output()}`);
    });
  }
  await eventually(() => registered.size === 3, 120_000, 'three registered workers');
  // Warm every frontend on every worker (and give kv mode their cached prefixes).
  for (const f of frontends.values()) {
    for (let i = 0; i < 6; i++) assert.equal((await complete(f.baseUrl, MODEL, 2, `warm ${i} ${'some words '.repeat(40)}`)).status, 200);
  }
  workers[1]!.proc.kill('SIGKILL');
  await workers[1]!.exited;

  const results = await Promise.all(
    [...frontends.entries()].map(async ([mode, f]) => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await complete(f.baseUrl, MODEL, 2, `after ${i} ${'some words '.repeat(40)}`)).status);
      return { mode, statuses, log: f.proc.output() };
    }),
  );
  for (const { mode, statuses, log } of results) {
    const failed = statuses.filter((s) => s !== 200);
    assert.ok(failed.length <= 1, `${mode}: ${failed.length} of 20 requests failed after the kill (${statuses.join(',')})`);
    if (failed.length > 0) {
      assert.equal(failed[0], 503, `${mode}: the one request that found the dead worker is a clear 503`);
      assert.match(log, /worker instance marked down/, `${mode}: the frontend says the instance left routing`);
    }
  }
  // The lease of the dead worker is still there: discovery had no part in taking it out of routing.
  assert.equal(registered.size, 3);
});
