// Two `dynamo-ts frontend` processes in kv mode with --router-replica-sync, two mockers, NATS event
// plane: the second frontend's routing sees the load the first one put on a worker.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { RouterEvent } from '../../src/protocols/index.js';
import {
  closeNatsConnections,
  decodeEndpointInstance,
  FileDiscoveryBackend,
  INSTANCES_BUCKET,
  NatsEventPlane,
  subscribeKvEvents,
  watchRecords,
} from '../../src/runtime/index.js';
import { startNats, type InfraServer } from '../support/infra-servers.js';
import { postJson } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

let nats: InfraServer;
let kvRoot: string;
let front1: { proc: RunningProcess; baseUrl: string };
let front2: { proc: RunningProcess; baseUrl: string };
const workers: RunningProcess[] = [];
let backend: FileDiscoveryBackend;
let events: NatsEventPlane;
const kvEvents: RouterEvent[] = [];
const instanceIds = new Set<bigint>();

const ROUTER_ARGS = ['--router-mode', 'kv', '--router-replica-sync', '--router-temperature', '0'];

before(async () => {
  nats = await startNats();
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-replica-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_EVENT_PLANE: 'nats', NATS_SERVER: nats.url };
  front1 = await startFrontendProcess(env, ROUTER_ARGS);
  front2 = await startFrontendProcess(env, ROUTER_ARGS);
  workers.push(startMockerProcess(env), startMockerProcess(env));
  backend = new FileDiscoveryBackend({ root: kvRoot, leaseTtlSecs: 10 });
  await watchRecords(backend, `${INSTANCES_BUCKET}/`, decodeEndpointInstance, {
    onPut: (_k, inst) => instanceIds.add(inst.instanceId),
    onDelete: () => undefined,
  });
  events = new NatsEventPlane(nats.url);
  await subscribeKvEvents(events, 'dynamo', 'backend', (e) => kvEvents.push(e));
});

after(async () => {
  await stopAll([front1?.proc, front2?.proc, ...workers]);
  await events?.close();
  await backend?.close();
  await closeNatsConnections();
  await nats?.dispose();
  rmSync(kvRoot, { recursive: true, force: true });
});

const words = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

async function until(what: string, cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!cond()) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until `frontend` routes to `instance`: a frontend learns each worker from discovery on its
 * own schedule, so one that lists the model may not know the second worker yet. The probe prompt
 * is shorter than a KV block, so it stores nothing.
 */
async function untilRoutable(frontend: { baseUrl: string }, instance: bigint): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await postJson(frontend.baseUrl, '/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 1 }, {
      'x-dynamo-worker-instance-id': instance.toString(),
    });
    await res.text();
    if (res.status === 200) return;
    assert.ok(Date.now() < deadline, `${frontend.baseUrl} never routed to worker ${instance}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The worker whose first prompt block of a new prefix (Stored with no parent) arrives next. */
async function nextPrefillWorker(): Promise<bigint> {
  let found: bigint | undefined;
  await until('no prefill KV event', () => {
    const e = kvEvents.find((x) => typeof x.event.data === 'object' && 'stored' in x.event.data && x.event.data.stored.parent_hash === null);
    found = e?.worker_id;
    return found !== undefined;
  });
  return found!;
}

test('frontend 2 routes away from the worker frontend 1 loaded', async () => {
  await waitForModel(front1.baseUrl, MODEL, front1.proc);
  await waitForModel(front2.baseUrl, MODEL, front2.proc);
  await until('two worker instances', () => instanceIds.size === 2);
  const [a, b] = [...instanceIds];
  for (const frontend of [front1, front2]) for (const instance of [a!, b!]) await untilRoutable(frontend, instance);

  // Worker B gets the larger cache, so that on equal costs (no shared load) frontend 2 would pick A.
  kvEvents.length = 0;
  const warm = await postJson(front2.baseUrl, '/v1/completions', { model: MODEL, prompt: words('warm', 1500), max_tokens: 1 }, {
    'x-dynamo-worker-instance-id': b!.toString(),
  });
  assert.equal(warm.status, 200, await warm.text());
  assert.equal(await nextPrefillWorker(), b);

  // Frontend 1: a long stream pinned to A, held open while frontend 2 routes.
  kvEvents.length = 0;
  const held = await postJson(
    front1.baseUrl,
    '/v1/completions',
    { model: MODEL, prompt: words('held', 300), max_tokens: 20000, ignore_eos: true, stream: true },
    { 'x-dynamo-worker-instance-id': a!.toString() },
  );
  const reader = (held.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  assert.equal(await nextPrefillWorker(), a);

  kvEvents.length = 0;
  const probe = await postJson(front2.baseUrl, '/v1/completions', { model: MODEL, prompt: words('probe', 200), max_tokens: 1 });
  assert.equal(probe.status, 200, await probe.text());
  assert.equal(await nextPrefillWorker(), b, 'frontend 2 saw A busy with frontend 1\'s request');
  await reader.cancel();
});
