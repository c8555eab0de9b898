// Two kv routers sharing one in-process event plane (--router-replica-sync), host/disk cache tiers
// in the cost, and power-of-two routing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/router/kv/index.js';
import {
  decodeSequenceEvent,
  encodeSequenceEvent,
  KvRouterPolicy,
  LoadTracker,
  PowerOfTwoPolicy,
  PushRouter,
  type WorkerInstance,
} from '../../../src/router/index.js';
import { LocalEventPlane } from '../../../src/runtime/index.js';

const SCOPE = 'namespace.sync-test.component.backend';

function request(tokens: number[]): PreprocessedRequest {
  return { model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing: null };
}

/** An engine whose streams yield one output, then wait until `release()`. */
function heldEngine() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  const client: EngineClient = {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [1] };
      await done;
    },
  };
  return { client, release };
}

const ctx = (requestId: string) => ({ requestId, signal: new AbortController().signal });
const prompt = (start: number, n: number) => Array.from({ length: n }, (_, i) => start + i);

async function twoRouters(opts: { now?: () => number } = {}) {
  const engineA = heldEngine();
  const engineB = heldEngine();
  const instances: WorkerInstance[] = [
    { id: 1n, client: engineA.client },
    { id: 2n, client: engineB.client },
  ];
  const make = async (routerId: bigint) => {
    const policy = new KvRouterPolicy({ blockSize: 4, now: opts.now });
    const router = new PushRouter('m', policy);
    router.setInstances(instances);
    const plane = new LocalEventPlane();
    const stop = await policy.startReplicaSync(plane, SCOPE, routerId, { heartbeatMs: 60_000, peerTimeoutMs: 1000 });
    return { policy, router, plane, stop };
  };
  return { r1: await make(11n), r2: await make(22n), engineA, engineB };
}

test('a replica sees the other router\'s active request: add, prefill complete and free are applied, never echoed', async () => {
  const { r1, r2, engineA } = await twoRouters();
  const req = request(prompt(0, 32));
  req.routing = { backend_instance_id: 1 };
  const it = r1.router.generate(req, ctx('req-1'))[Symbol.asyncIterator]();
  assert.equal(r2.policy.sequences.activeRequests(1n), 1);
  assert.equal(r2.policy.sequences.activeBlocks(1n), 8);
  assert.equal(r2.policy.sequences.activePrefillTokens(1n), 32);
  assert.equal(r1.policy.sequences.activeRequests(1n), 1, 'its own event is not applied twice');
  await it.next();
  assert.equal(r2.policy.sequences.activePrefillTokens(1n), 0, 'MarkPrefillCompleted synced');
  // No cache anywhere: without the replica's load r2 would tie; with it, worker 2 is cheaper.
  assert.equal(r2.router.pick(request(prompt(1000, 32))).id, 2n);
  engineA.release();
  while (!(await it.next()).done);
  assert.equal(r2.policy.sequences.activeRequests(1n), 0);
  assert.equal(r2.policy.sequences.activeBlocks(1n), 0);
  r1.stop();
  r2.stop();
});

test('a replica that leaves (RouterLeft) or goes silent past the timeout has its requests dropped', async () => {
  let now = 0;
  const { r1, r2 } = await twoRouters({ now: () => now });
  r1.router.generate(request(prompt(0, 16)), ctx('q-1'));
  const worker = r1.policy.lastDecision!.workerId;
  assert.equal(r2.policy.sequences.activeRequests(worker), 1);
  r1.stop();
  assert.equal(r2.policy.sequences.activeRequests(worker), 0, 'dropped on RouterLeft');

  const { r1: a, r2: b } = await twoRouters({ now: () => now });
  a.router.generate(request(prompt(0, 16)), ctx('q-2'));
  const w = a.policy.lastDecision!.workerId;
  now += 5000;
  const sync = (b.policy as unknown as { replica: { dropSilentPeers(): void; peerCount: number } }).replica;
  assert.equal(sync.peerCount, 1);
  sync.dropSilentPeers();
  assert.equal(sync.peerCount, 0);
  assert.equal(b.policy.sequences.activeRequests(w), 0, 'dropped after the timeout');
  a.stop();
  b.stop();
  r2.stop();
});

test('ActiveSequenceEvent JSON keeps u64 hashes exact and rejects malformed input', () => {
  const e = {
    request_id: 'r',
    worker: { worker_id: 2n ** 64n - 1n, dp_rank: 0 },
    data: { AddRequest: { token_sequence: [2n ** 63n + 7n], isl: 5, overlap: 1, track_prefill_tokens: true, expected_output_tokens: null } },
    router_id: 9n,
    lora_name: null,
  };
  const text = encodeSequenceEvent(e);
  assert.match(text, /"token_sequence":\[9223372036854775815\]/);
  assert.deepEqual(decodeSequenceEvent(text), e);
  assert.equal(decodeSequenceEvent('{"request_id":"r"}'), null);
  assert.equal(decodeSequenceEvent('not json'), null);
});

function storeEvent(tokens: number[]) {
  const local = computeLocalBlockHashes(tokens, 4);
  const seq = computeSequenceHashes(local);
  return { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: local.map((l, i) => ({ tokens_hash: l, block_hash: seq[i]! })) } } };
}

test('host and disk tiers earn 0.75 and 0.25 credit per block beyond the device prefix', () => {
  const policy = new KvRouterPolicy({ blockSize: 4, trackActiveBlocks: false });
  const ids = [1n, 2n, 3n];
  const insts: WorkerInstance[] = ids.map((id) => ({ id, client: heldEngine().client }));
  const p = prompt(0, 40); // 10 blocks
  policy.applyKvEvent(1n, storeEvent(p.slice(0, 8))); // device 2
  policy.applyKvEvent(1n, storeEvent(p.slice(0, 24)), 'host_pinned'); // host 6 → 4 beyond device
  policy.applyKvEvent(2n, storeEvent(p.slice(0, 32)), 'disk'); // disk 8
  policy.applyKvEvent(3n, storeEvent(p.slice(0, 40)), 'external'); // not used
  policy.select(insts, request(p));
  // worker 1: 10 - (2 + 0.75*4) = 5; worker 2: 10 - 0.25*8 = 8; worker 3: 10.
  assert.deepEqual(policy.lastDecision, { workerId: 1n, dpRank: 0, overlapBlocks: 2, cost: 5 });
  const zero = new KvRouterPolicy({ blockSize: 4, trackActiveBlocks: false, hostCacheHitWeight: 0, diskCacheHitWeight: 1 });
  zero.applyKvEvent(1n, storeEvent(p.slice(0, 24)), 'host_pinned');
  zero.applyKvEvent(2n, storeEvent(p.slice(0, 12)), 'disk');
  zero.select(insts, request(p));
  assert.deepEqual(zero.lastDecision, { workerId: 2n, dpRank: 0, overlapBlocks: 0, cost: 7 });
});

test('power-of-two samples two distinct instances and takes the less loaded one', () => {
  const load = new LoadTracker();
  const insts: WorkerInstance[] = [1n, 2n, 3n].map((id) => ({ id, client: heldEngine().client }));
  load.start(1n, 0);
  load.start(1n, 0);
  load.start(3n, 0);
  const draws = [0.0, 0.0]; // i = 0 (id 1), j = 1 (id 2)
  const policy = new PowerOfTwoPolicy(load, () => draws.shift()!);
  assert.equal(policy.select(insts).id, 2n);
  const seen = new Set<bigint>();
  const p2 = new PowerOfTwoPolicy(load);
  for (let i = 0; i < 60; i++) seen.add(p2.select(insts).id);
  assert.ok(!seen.has(1n), 'the most loaded instance never wins a pair');
  assert.equal(new PowerOfTwoPolicy(load).select(insts.slice(0, 1)).id, 1n);
});
