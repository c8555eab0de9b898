// Data-parallel ranks in kv routing (reference/disagg-router.md §2): the router scores each
// (worker, dp rank) pair, sends the chosen rank with the request, and honours a named rank.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes, rankKey } from '../../src/router/kv/index.js';
import { KvRouterPolicy, PushRouter, RoundRobinPolicy, type WorkerInstance } from '../../src/router/index.js';
import { postJson, serveInjected } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';

function request(tokens: number[], routing: PreprocessedRequest['routing'] = null): PreprocessedRequest {
  return { model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing };
}

/** A worker that records the requests it receives. */
function recording(seen: PreprocessedRequest[]): EngineClient {
  return {
    async *generate(req): AsyncGenerator<LLMEngineOutput> {
      seen.push(req);
      yield { token_ids: [1], finish_reason: 'length' };
    },
  };
}

const ctx = (requestId: string) => ({ requestId, signal: new AbortController().signal });

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<void> {
  for await (const _ of stream) void _;
}

function storeEvent(tokens: number[], blockSize: number, dpRank: number) {
  const local = computeLocalBlockHashes(tokens, blockSize);
  const seq = computeSequenceHashes(local);
  return { event_id: 0, dp_rank: dpRank, data: { stored: { parent_hash: null, blocks: local.map((l, i) => ({ tokens_hash: l, block_hash: seq[i]! })) } } };
}

function cluster(policy: KvRouterPolicy | RoundRobinPolicy) {
  const seen: PreprocessedRequest[] = [];
  const router = new PushRouter('m', policy);
  const workers: WorkerInstance[] = [
    { id: 1n, client: recording(seen), dpRanks: { start: 0, size: 4 } },
    { id: 2n, client: recording(seen), dpRanks: { start: 0, size: 4 } },
  ];
  router.setInstances(workers);
  return { router, seen };
}

test('the rank holding the prefix wins; the rank goes with the request, not into the caller\'s request', async () => {
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const { router, seen } = cluster(policy);
  const prompt = Array.from({ length: 32 }, (_, i) => i);
  policy.applyKvEvent(2n, storeEvent(prompt.slice(0, 24), 4, 3));
  const original = request(prompt);
  await drain(router.generate(original, ctx('a')));
  assert.deepEqual(policy.lastDecision, { workerId: 2n, dpRank: 3, overlapBlocks: 6, cost: 2 + 8 });
  assert.equal(seen[0]!.routing?.dp_rank, 3);
  assert.equal(original.routing, null, 'the caller\'s request is left as it was');
});

test('load is tracked per rank: concurrent requests spread over the ranks of the workers', () => {
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const { router } = cluster(policy);
  const pairs = new Set<string>();
  for (let i = 0; i < 8; i++) {
    router.generate(request(Array.from({ length: 16 }, (_, j) => 1000 * i + j)), ctx(`r${i}`));
    pairs.add(`${policy.lastDecision!.workerId}/${policy.lastDecision!.dpRank}`);
    assert.equal(policy.sequences.activeRequests(rankKey(policy.lastDecision!.workerId, policy.lastDecision!.dpRank)), 1);
  }
  assert.equal(pairs.size, 8, `8 in-flight requests on 8 (worker, rank) pairs: ${[...pairs].join(' ')}`);
});

test('a named dp_rank is scored and sent as named; non-kv modes send no rank', async () => {
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const { router, seen } = cluster(policy);
  const prompt = Array.from({ length: 32 }, (_, i) => i);
  policy.applyKvEvent(2n, storeEvent(prompt, 4, 3));
  await drain(router.generate(request(prompt, { dp_rank: 1 }), ctx('a')));
  assert.equal(policy.lastDecision!.dpRank, 1);
  assert.equal(seen[0]!.routing?.dp_rank, 1);

  const rr = cluster(new RoundRobinPolicy());
  await drain(rr.router.generate(request(prompt), ctx('b')));
  assert.equal(rr.seen[0]!.routing, null);
});

test('a worker that leaves takes every rank\'s load and cache with it', () => {
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const { router } = cluster(policy);
  policy.applyKvEvent(1n, storeEvent([1, 2, 3, 4], 4, 2));
  router.generate(request([1, 2, 3, 4, 5]), ctx('a'));
  assert.deepEqual([policy.lastDecision!.workerId, policy.lastDecision!.dpRank], [1n, 2]);
  router.setInstances([{ id: 2n, client: recording([]), dpRanks: { start: 0, size: 4 } }]);
  assert.equal(policy.sequences.activeRequests(rankKey(1n, 2)), 0);
  assert.equal(policy.indexer.treeSize(1n, 2), 0);
});

test('serve with --data-parallel-size: per-rank KV events reach the router, a shared prefix stays on one rank, x-dynamo-dp-rank pins', async () => {
  const { service, baseUrl } = await serveInjected(['--num-workers', '2', '--data-parallel-size', '2', '--router-mode', 'kv', '--block-size', '16', '--speedup-ratio', '100']);
  try {
    assert.equal(service.engines.length, 4, 'two workers of two ranks');
    const policy = service.models.get(MODEL).router.policy;
    assert.ok(policy instanceof KvRouterPolicy);
    const system = 'You are a meticulous assistant who answers questions about rivers and bridges. '.repeat(20);
    const decisions: string[] = [];
    const overlaps: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: `${system}Question ${i}?`, max_tokens: 2 });
      assert.equal(res.status, 200);
      await res.json();
      decisions.push(`${policy.lastDecision!.workerId}/${policy.lastDecision!.dpRank}`);
      overlaps.push(policy.lastDecision!.overlapBlocks);
    }
    assert.equal(new Set(decisions).size, 1, decisions.join(' '));
    assert.ok(overlaps.slice(1).every((o) => o >= 10), overlaps.join(' '));
    const finished = service.engines.map((e) => e.stats().numFinishedRequests);
    assert.deepEqual(finished.filter((n) => n > 0), [4], `one core served them all: ${finished.join(' ')}`);

    const pinned = { 'x-dynamo-worker-instance-id': service.instanceIds[1]!.toString(), 'x-dynamo-dp-rank': '1' };
    const res = await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: 'pinned', max_tokens: 2 }, pinned);
    assert.equal(res.status, 200);
    await res.json();
    assert.equal(service.engines[3]!.stats().numFinishedRequests, finished[3]! + 1, 'worker 2, rank 1');
    const bad = await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: 'pinned', max_tokens: 2 }, { ...pinned, 'x-dynamo-dp-rank': '5' });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /dp_rank 5 is out of bounds for dp_size 2/);
  } finally {
    await service.stop();
  }
});
