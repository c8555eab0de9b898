// Frontend + 3 mocker processes over etcd discovery, the TCP request plane and the NATS event plane,
// with real etcd and nats-server: traffic reaches every worker, a kill -9'd worker leaves routing
// within its lease TTL, etcd and nats-server restarts are survived.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RouterEvent } from '../../src/protocols/index.js';
import {
  closeNatsConnections,
  decodeEndpointInstance,
  INSTANCES_BUCKET,
  NatsEventPlane,
  subscribeKvEvents,
  watchRecords,
} from '../../src/runtime/index.js';
import { EtcdDiscoveryBackend } from '../../src/runtime/discovery/etcd-backend.js';
import { startEtcd, startNats, type InfraServer } from '../support/infra-servers.js';
import { eventually } from '../support/in-process.js';
import { freePort, type RunningProcess } from '../support/processes.js';
import { complete, MODEL, startFrontendProcess, startMockerProcess, stopAll, streamChat, waitForModel } from './helpers.js';

const LEASE_TTL_SECS = 2;

let etcd: InfraServer;
let nats: InfraServer;
let env: Record<string, string>;
let frontend: { proc: RunningProcess; baseUrl: string };
let workers: RunningProcess[] = [];
/** What the test itself sees in etcd: instance id (hex) per live key. */
const liveInstances = new Map<string, string>();
let watcher: EtcdDiscoveryBackend;
let events: NatsEventPlane;
const kvEvents: RouterEvent[] = [];

before(async () => {
  [etcd, nats] = await Promise.all([startEtcd(), startNats()]);
  env = {
    DYN_DISCOVERY_BACKEND: 'etcd',
    ETCD_ENDPOINTS: etcd.url,
    NATS_SERVER: nats.url,
    ETCD_LEASE_TTL: String(LEASE_TTL_SECS),
  };
  frontend = await startFrontendProcess(env);
  workers = [0, 1, 2].map(() => startMockerProcess(env));
  watcher = new EtcdDiscoveryBackend({ endpoints: [etcd.url], leaseTtlSecs: LEASE_TTL_SECS });
  await watchRecords(watcher, `${INSTANCES_BUCKET}/`, decodeEndpointInstance, {
    onPut: (key, inst) => liveInstances.set(key, inst.instanceId.toString(16)),
    onDelete: (key) => liveInstances.delete(key),
  });
  events = new NatsEventPlane(nats.url);
  await subscribeKvEvents(events, 'dynamo', 'backend', (e) => kvEvents.push(e));
});

after(async () => {
  await stopAll([frontend?.proc, ...workers]);
  await events?.close();
  await closeNatsConnections();
  await watcher?.close();
  await Promise.all([etcd?.dispose(), nats?.dispose()]);
});

test('the model appears once workers register, and every worker serves traffic', async () => {
  await waitForModel(frontend.baseUrl, MODEL, frontend.proc);
  await eventually(() => liveInstances.size === 3, 20_000, 'three registered instances');
  const ids = new Set(liveInstances.values());
  // Prompts longer than one KV block make each worker publish a KV "stored" event naming itself.
  const longPrompt = 'the quick brown fox jumps over the lazy dog '.repeat(20);
  for (let i = 0; i < 6; i++) {
    const { status, body } = await complete(frontend.baseUrl, MODEL, 4, `${i} ${longPrompt}`);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.choices![0]!.finish_reason, 'length');
  }
  await eventually(() => new Set(kvEvents.map((e) => e.worker_id.toString(16))).size === 3, 5000, 'KV events from all three workers');
  assert.deepEqual(new Set(kvEvents.map((e) => e.worker_id.toString(16))), ids);
});

test('kill -9 of a worker: its in-flight request fails clearly, it leaves routing within the lease TTL', async () => {
  let started = 0;
  const streams = [0, 1, 2].map(() => streamChat(frontend.baseUrl, 600, () => started++));
  await eventually(() => started === 3, 10_000, 'three streams under way');
  const victim = workers[1]!;
  victim.proc.kill('SIGKILL');
  const texts = await Promise.all(streams);
  // The HTTP layer reports 5xx stream errors without their detail (the worker-lost text is logged).
  const failed = texts.filter((t) => t.includes('data: {"error":') && !t.includes('"finish_reason":"length"'));
  assert.equal(failed.length, 1, 'exactly the stream on the killed worker ends with an error event');
  assert.ok(texts.filter((t) => t.includes('"finish_reason":"length"')).length === 2, 'the other two finish');
  // The frontend logs the real cause, with the request and the worker instance.
  const lost = frontend.proc.output().split('\n').find((l) => l.includes('worker stream failed mid-response'));
  assert.ok(lost, frontend.proc.output());
  assert.match(lost, /"request_id":"[^"]+".*"instance":"[0-9a-f]+".*"err":"worker connection lost/);

  await eventually(() => liveInstances.size === 2, (LEASE_TTL_SECS + 3) * 1000, 'the dead instance leaves discovery');
  for (let i = 0; i < 6; i++) {
    const { status, body } = await complete(frontend.baseUrl);
    assert.equal(status, 200, `no request reaches the dead worker: ${JSON.stringify(body)}`);
  }
});

test('etcd restarted under a running frontend: discovery recovers; ETCD_ENDPOINTS may list several', async () => {
  await etcd.stop();
  await etcd.restart();
  // A dead endpoint first: the client moves on to the live one.
  const endpoints = `http://127.0.0.1:${await freePort()},${etcd.url}`;
  const fresh = startMockerProcess({ ...env, ETCD_ENDPOINTS: endpoints }, ['--model-name', 'after-restart']);
  workers.push(fresh);
  await waitForModel(frontend.baseUrl, 'after-restart', frontend.proc, 20_000);
  const { status } = await complete(frontend.baseUrl, 'after-restart');
  assert.equal(status, 200);
  // The workers' leases survived the restart: the original model is still served by both.
  assert.equal((await complete(frontend.baseUrl)).status, 200);
  await fresh.stop();
  await eventually(() => [...liveInstances.keys()].length === 2, 5000, 'clean shutdown deregisters');
});

test('nats-server restarted: KV events flow again', async () => {
  await nats.stop();
  await nats.restart();
  const before = kvEvents.length;
  const deadline = Date.now() + 20_000;
  while (kvEvents.length === before) {
    assert.ok(Date.now() < deadline, 'KV events after the NATS restart');
    await complete(frontend.baseUrl, MODEL, 2, `restart ${Math.random()} ${'word '.repeat(100)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});
