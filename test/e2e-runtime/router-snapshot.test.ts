// Router state snapshots on a real nats-server with JetStream: frontend A (kv mode, snapshot every
// 5 KV events) and a mocker; frontend B started later loads A's snapshot into its indexer;
// frontend C with --router-reset-states deletes it and starts empty.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { parseCommandLine } from '../../src/config/index.js';
import { startFrontend, type FrontendService } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { computeLocalBlockHashes, computeSaltSeed, decodeKvSnapshot } from '../../src/router/kv/index.js';
import { KvRouterPolicy } from '../../src/router/index.js';
import { componentScope, NatsRouterStateStore } from '../../src/runtime/index.js';
import { startNats, type InfraServer } from '../support/infra-servers.js';
import { postJson } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

let nats: InfraServer;
let kvRoot: string;
let env: Record<string, string>;
let frontA: { proc: RunningProcess; baseUrl: string };
let mocker: RunningProcess;
let nc: NatsConnection;
let store: NatsRouterStateStore;

before(async () => {
  nats = await startNats({ jetStream: true });
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-snapshot-'));
  env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_EVENT_PLANE: 'nats', NATS_SERVER: nats.url };
  frontA = await startFrontendProcess(env, ['--router-mode', 'kv', '--router-snapshot-threshold', '5']);
  mocker = startMockerProcess(env);
  nc = await connect({ servers: nats.url });
  store = new NatsRouterStateStore(nc, componentScope('dynamo', 'backend'));
});

after(async () => {
  await stopAll([frontA?.proc, mocker]);
  await nc?.close();
  await nats?.dispose();
  rmSync(kvRoot, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = await probe();
    if (v) return v;
    assert.ok(Date.now() < deadline, what);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function inProcessFrontend(args: string[]): Promise<FrontendService> {
  const parsed = parseCommandLine(['frontend', '--http-host', '127.0.0.1', '--http-port', '0', '--router-mode', 'kv', ...args], env);
  assert.equal(parsed.kind, 'run');
  if (parsed.kind !== 'run') throw new Error('unreachable');
  return startFrontend(parsed.config, createLogger('warn'));
}

function kvPolicy(front: FrontendService): KvRouterPolicy {
  const policy = front.models.get(MODEL).router.policy;
  assert.ok(policy instanceof KvRouterPolicy);
  return policy;
}

const PREFIX = Array.from({ length: 256 }, (_, i) => 1000 + i);
/** Each request adds whole blocks of its own, so each one produces a store event. */
const suffix = (n: number) => Array.from({ length: 64 }, (_, i) => 5000 + n * 64 + i);

test('a later router loads the snapshot; --router-reset-states deletes it', async () => {
  await waitForModel(frontA.baseUrl, MODEL, frontA.proc);
  for (let i = 0; i < 6; i++) {
    const res = await postJson(frontA.baseUrl, '/v1/completions', { model: MODEL, prompt: [...PREFIX, ...suffix(i)], max_tokens: 2 });
    assert.equal(res.status, 200, await res.text());
  }
  const saved = await until('frontend A saved a snapshot', () => store.load()).catch((err: Error) => {
    throw new Error(`${err.message}\n${frontA.proc.output()}`);
  });
  // The mocker is quiet now: the next snapshot (if any) is what B will load; wait until it stops changing.
  let snapshot = saved;
  const settledBy = Date.now() + 60_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const again = (await store.load())!;
    if (Buffer.compare(Buffer.from(again), Buffer.from(snapshot)) === 0) break;
    assert.ok(Date.now() < settledBy, 'the snapshot kept changing with the mocker quiet');
    snapshot = again;
  }
  const events = decodeKvSnapshot(snapshot);
  assert.ok(events.length > 0);
  const worker = events[0]!.worker_id;

  const b = await inProcessFrontend([]);
  try {
    await until('frontend B serves the model', async () => b.models.has(MODEL));
    const policy = kvPolicy(b);
    const hashes = computeLocalBlockHashes(PREFIX, policy.options.blockSize, computeSaltSeed({}));
    const match = await until('frontend B loaded the snapshot', async () => policy.indexer.findMatches(hashes).find((m) => m.workerId === worker));
    assert.equal(match.blocks, hashes.length, 'B knows the whole shared prefix is cached on the worker');
    assert.equal(policy.indexer.tree.currentSize, events.length, 'B holds exactly the snapshot');
  } finally {
    await b.stop();
  }

  const c = await inProcessFrontend(['--router-reset-states']);
  try {
    await until('frontend C serves the model', async () => c.models.has(MODEL));
    await until('frontend C deleted the snapshot', async () => (await store.load()) === null);
    assert.equal(kvPolicy(c).indexer.tree.currentSize, 0, 'C starts empty');
  } finally {
    await c.stop();
  }
});

test('the router state flags need the NATS event plane', async () => {
  const parsed = parseCommandLine(['frontend', '--event-plane', 'zmq', '--discovery-backend', 'file', '--router-reset-states'], {});
  assert.equal(parsed.kind, 'run');
  if (parsed.kind !== 'run') return;
  await assert.rejects(startFrontend(parsed.config, createLogger('warn')), /--router-reset-states needs the NATS event plane/);
});
