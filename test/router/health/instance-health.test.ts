// Lost workers leave routing at once, for every router sharing the health record, in every mode;
// they come back on re-registration or a successful probe.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROUTER_MODES, WorkerLostError, type EngineClient, type LLMEngineOutput, type PreprocessedRequest, type RouterMode } from '../../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/router/kv/index.js';
import { createRouterPolicy, InstanceHealth, KvRouterPolicy, LoadTracker, PushRouter, type HealthChange, type WorkerInstance } from '../../../src/router/index.js';

function request(tokens: number[] = [1, 2, 3, 4, 5, 6, 7, 8]): PreprocessedRequest {
  return { model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing: null };
}

const ctx = (requestId: string, signal = new AbortController().signal) => ({ requestId, signal });

/** Serves two tokens, recording `name` in `served` for each request. */
function worker(served: string[], name: string): EngineClient {
  return {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      served.push(name);
      yield { token_ids: [1] };
      yield { token_ids: [2], finish_reason: 'length' };
    },
  };
}

/** Accepts, then loses the connection before its first output. */
function dying(served: string[], name: string): EngineClient {
  return {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      served.push(name);
      throw new WorkerLostError('worker connection lost: the response stream ended before completion');
    },
  };
}

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<number> {
  let n = 0;
  for await (const _ of stream) n++;
  return n;
}

function routerFor(mode: RouterMode, health: InstanceHealth): PushRouter {
  const load = new LoadTracker();
  return new PushRouter('m', createRouterPolicy(mode, { load, kv: { blockSize: 4 } }), { load, health });
}

function storeEvent(tokens: number[], blockSize: number) {
  const local = computeLocalBlockHashes(tokens, blockSize);
  const seq = computeSequenceHashes(local);
  return { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: local.map((l, i) => ({ tokens_hash: l, block_hash: seq[i]! })) } } };
}

for (const mode of ROUTER_MODES.filter((m) => m !== 'direct')) {
  test(`${mode}: a worker lost by one router is never picked again by any router of the process`, async () => {
    const health = new InstanceHealth();
    const served: string[] = [];
    const instances = (): WorkerInstance[] => [
      { id: 1n, client: worker(served, 'a') },
      { id: 2n, client: dying(served, 'dead') },
      { id: 3n, client: worker(served, 'c') },
    ];
    const first = routerFor(mode, health);
    const second = routerFor(mode, health);
    first.setInstances(instances());
    second.setInstances(instances());
    // Pin one request to the dying worker: its loss is what every router must learn from.
    await assert.rejects(drain(first.generate({ ...request(), routing: { backend_instance_id: 2 } }, ctx('lost'))), WorkerLostError);
    assert.equal(health.isDown(2n), true);
    served.length = 0;
    for (let i = 0; i < 30; i++) {
      assert.equal(await drain(first.generate(request(), ctx(`a${i}`))), 2);
      assert.equal(await drain(second.generate(request(), ctx(`b${i}`))), 2);
    }
    assert.ok(!served.includes('dead'), `${mode} routed to the down worker`);
    assert.deepEqual(first.instances.map((i) => i.id), [1n, 3n]);
    assert.deepEqual(first.instanceIds, [1n, 2n, 3n], 'the down instance is still discovered');
    health.markUp(2n, 'registered again');
    assert.deepEqual(second.instances.map((i) => i.id), [1n, 2n, 3n]);
  });
}

test('kv: a down worker leaves the indexer, so its cached prefix no longer draws requests', async () => {
  const health = new InstanceHealth();
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const router = new PushRouter('m', policy, { health });
  const served: string[] = [];
  router.setInstances([
    { id: 1n, client: worker(served, 'a') },
    { id: 2n, client: dying(served, 'dead') },
  ]);
  const prompt = Array.from({ length: 32 }, (_, i) => i);
  policy.applyKvEvent(2n, storeEvent(prompt.slice(0, 24), 4));
  // The dead worker holds the prefix, so kv sends the request there; lost before any output, the
  // request is retried on the other worker.
  assert.equal(await drain(router.generate(request(prompt), ctx('first'))), 2);
  assert.deepEqual(served, ['dead', 'a']);
  assert.equal(health.isDown(2n), true);
  assert.equal(await drain(router.generate(request(prompt), ctx('second'))), 2);
  assert.equal(policy.lastDecision?.workerId, 1n);
  assert.deepEqual(served, ['dead', 'a', 'a']);
  // Back in routing, it starts from an empty cache: its old blocks were dropped.
  health.markUp(2n, 'registered again');
  router.generate(request(prompt), ctx('third'));
  assert.equal(policy.lastDecision?.overlapBlocks, 0);
});

test('all workers down: a clear 503 (model not ready), never a hang', async () => {
  const health = new InstanceHealth();
  const router = routerFor('round-robin', health);
  router.setInstances([{ id: 1n, client: dying([], 'x') }]);
  await assert.rejects(drain(router.generate(request(), ctx('a'))), WorkerLostError);
  assert.throws(() => router.generate(request(), ctx('b')), (err: Error & { httpStatus?: number }) => err.httpStatus === 503);
});

test('a stream silent past the stall timeout is aborted and fails as a lost worker', async () => {
  const health = new InstanceHealth();
  let aborted = false;
  const stalls: EngineClient = {
    async *generate(_req, c): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [1] };
      await new Promise<void>((resolve) => c.signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted = true;
    },
  };
  const router = new PushRouter('m', createRouterPolicy('round-robin'), { health, stallTimeoutMs: 200 });
  router.setInstances([{ id: 7n, client: stalls }]);
  const outputs: LLMEngineOutput[] = [];
  await assert.rejects(
    (async () => {
      for await (const out of router.generate(request(), ctx('s'))) outputs.push(out);
    })(),
    (err: unknown) => err instanceof WorkerLostError && /inactivity timeout/.test(err.message) && err.instanceId === 7n,
  );
  assert.equal(outputs.length, 1);
  assert.equal(aborted, true);
  assert.equal(health.isDown(7n), true);
});

test('a slow consumer is not a stalled worker', async () => {
  const router = new PushRouter('m', createRouterPolicy('round-robin'), { stallTimeoutMs: 100 });
  router.setInstances([{ id: 1n, client: worker([], 'a') }]);
  let n = 0;
  for await (const _ of router.generate(request(), ctx('slow'))) {
    n++;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(n, 2);
  assert.equal(router.health.isDown(1n), false);
});

test('a down instance returns when its probe succeeds; failed probes back off and keep it down', async () => {
  const probes: bigint[] = [];
  let reachable = false;
  const health = new InstanceHealth({
    probe: async (id) => {
      probes.push(id);
      return reachable;
    },
    probeBackoffMs: 20,
    maxProbeBackoffMs: 40,
  });
  const changes: HealthChange[] = [];
  health.subscribe((c) => changes.push(c));
  health.markDown(5n, 'connection refused');
  health.markDown(5n, 'again');
  while (probes.length < 3) await new Promise((r) => setTimeout(r, 10));
  assert.equal(health.isDown(5n), true);
  reachable = true;
  while (health.isDown(5n)) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(
    changes.map((c) => [c.id, c.down, c.reason]),
    [
      [5n, true, 'connection refused'],
      [5n, false, 'probe succeeded'],
    ],
  );
  health.close();
});

test('a forgotten instance (left discovery) stops being probed', async () => {
  let probed = 0;
  const health = new InstanceHealth({ probe: async () => (probed++, false), probeBackoffMs: 10 });
  health.markDown(9n, 'reset');
  health.forget(9n);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(probed, 0);
  assert.equal(health.isDown(9n), false);
});
