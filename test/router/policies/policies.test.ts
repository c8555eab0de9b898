import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverloadedError, type EngineClient, type LLMEngineOutput, type PreprocessedRequest } from '../../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/router/kv/index.js';
import { createRouterPolicy, KvRouterPolicy, LoadTracker, PushRouter, type WorkerInstance } from '../../../src/router/index.js';

function request(tokens: number[], routing: PreprocessedRequest['routing'] = null): PreprocessedRequest {
  return { model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing };
}

/** An engine whose streams emit `n` one-token outputs when consumed. */
const engine = (n = 2): EngineClient => ({
  async *generate(): AsyncGenerator<LLMEngineOutput> {
    for (let i = 0; i < n; i++) yield { token_ids: [i] };
  },
});
const instances = (...ids: number[]): WorkerInstance[] => ids.map((id) => ({ id: BigInt(id), client: engine() }));
const ctx = (requestId: string) => ({ requestId, signal: new AbortController().signal });

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<number> {
  let n = 0;
  for await (const _ of stream) n++;
  return n;
}

function storeEvent(tokens: number[], blockSize: number) {
  const local = computeLocalBlockHashes(tokens, blockSize);
  const seq = computeSequenceHashes(local);
  return { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: local.map((l, i) => ({ tokens_hash: l, block_hash: seq[i]! })) } } };
}

test('kv policy routes to the worker holding the prompt prefix and tracks the request', async () => {
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1, 2, 3));
  const prompt = Array.from({ length: 32 }, (_, i) => i);
  policy.applyKvEvent(2n, storeEvent(prompt.slice(0, 24), 4));
  const stream = router.generate(request(prompt), ctx('a'));
  // 8 prompt blocks, 6 cached: 2 blocks of prefill plus 8 new active blocks; the others pay 8 + 8.
  assert.deepEqual(policy.lastDecision, { workerId: 2n, dpRank: 0, overlapBlocks: 6, cost: 2 + 8 });
  assert.equal(policy.sequences.activeRequests(2n), 1);
  assert.equal(policy.sequences.activePrefillTokens(2n), 8);
  assert.equal(await drain(stream), 2);
  assert.equal(policy.sequences.activeRequests(2n), 0);
  assert.equal(policy.sequences.activeBlocks(2n), 0);
});

test('kv policy spreads load: the active blocks of an in-flight request count against its worker', () => {
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1, 2));
  router.generate(request([1, 2, 3, 4, 5, 6, 7, 8]), ctx('x'));
  const first = policy.lastDecision!.workerId;
  const second = router.pick(request([9, 10, 11, 12, 13, 14, 15, 16]));
  assert.notEqual(second.id, first);
});

test('approximate mode predicts the routed blocks and forgets them after the TTL', async () => {
  let now = 0;
  const policy = new KvRouterPolicy({ blockSize: 4, useKvEvents: false, ttlSecs: 0.2, now: () => now });
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1));
  const tokens = [1, 2, 3, 4];
  const local = computeLocalBlockHashes(tokens, 4);
  assert.deepEqual(policy.indexer.findMatches(local), []);
  await drain(router.generate(request(tokens), ctx('a')));
  assert.deepEqual(policy.indexer.findMatches(local).map((m) => [m.workerId, m.blocks]), [[1n, 1]]);
  policy.applyKvEvent(1n, { event_id: 0, dp_rank: 0, data: 'cleared' });
  assert.equal(policy.indexer.findMatches(local).length, 1, 'KV events are ignored in approximate mode');
  now = 250;
  router.pick(request([9, 9, 9, 9]));
  assert.deepEqual(policy.indexer.findMatches(local), []);
});

test('events interrupted: the kv policy predicts what it routes; events back: reported blocks stay, a clear drops the predictions', async () => {
  let now = 0;
  const policy = new KvRouterPolicy({ blockSize: 4, ttlSecs: 0.2, now: () => now });
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1, 2));
  const first = [1, 2, 3, 4, 5, 6, 7, 8];
  const second = [9, 9, 9, 9, 8, 8, 8, 8];
  const matches = (tokens: number[]) => policy.indexer.findMatches(computeLocalBlockHashes(tokens, 4)).map((m) => [m.workerId, m.blocks]);
  // With events flowing, nothing is predicted: the worker's events say what it holds.
  await drain(router.generate(request(first), ctx('a')));
  assert.deepEqual(matches(first), []);
  policy.setEventsFlowing(false);
  await drain(router.generate(request(first), ctx('b')));
  const chosen = policy.lastDecision!.workerId;
  assert.deepEqual(matches(first), [[chosen, 2]], 'cache awareness kept while events are down');
  await drain(router.generate(request(second), ctx('c')));
  const other = policy.lastDecision!.workerId;
  policy.setEventsFlowing(true);
  // Back: the worker that got `first` reports it; the other clears its cache.
  policy.applyKvEvent(chosen, storeEvent(first, 4));
  policy.applyKvEvent(other === chosen ? 3n : other, { event_id: 0, dp_rank: 0, data: 'cleared' });
  now = 250;
  router.pick(request([7, 7, 7, 7]));
  assert.deepEqual(matches(first), [[chosen, 2]], 'a reported block does not expire as a prediction');
  if (other !== chosen) assert.deepEqual(matches(second), [], 'a cleared worker holds nothing predicted');
});

test('removed instances leave the kv indexer', () => {
  const policy = new KvRouterPolicy({ blockSize: 4 });
  const router = new PushRouter('m', policy);
  router.setInstances(instances(1, 2));
  policy.applyKvEvent(2n, storeEvent([1, 2, 3, 4], 4));
  router.setInstances(instances(1));
  assert.deepEqual(policy.indexer.findMatches(computeLocalBlockHashes([1, 2, 3, 4], 4)), []);
});

test('least-loaded picks the instance with the fewest requests in flight', async () => {
  const load = new LoadTracker();
  const router = new PushRouter('m', createRouterPolicy('least-loaded', { load }), { load });
  router.setInstances(instances(1, 2, 3));
  const open = [router.generate(request([1]), ctx('a')), router.generate(request([1]), ctx('b'))];
  const third = router.pick(request([1]));
  const busy = new Set([1n, 2n, 3n].filter((id) => load.inflight(id) > 0));
  assert.equal(busy.size, 2);
  assert.ok(!busy.has(third.id));
  for (const s of open) await drain(s);
  assert.deepEqual([1n, 2n, 3n].map((id) => load.inflight(id)), [0, 0, 0]);
});

test('device-aware-weighted weighs accelerators by the CUDA:CPU ratio', () => {
  const load = new LoadTracker();
  const policy = createRouterPolicy('device-aware-weighted', { load, cudaToCpuRatio: 8 });
  const cpu: WorkerInstance = { id: 1n, client: engine(), deviceType: 'cpu' };
  const gpu: WorkerInstance = { id: 2n, client: engine(), deviceType: 'cuda' };
  for (let i = 0; i < 7; i++) load.start(2n, 1);
  assert.equal(policy.select([cpu, gpu], request([1])).id, 1n, 'cpu 0/1 <= gpu 7/8');
  load.start(1n, 1);
  assert.equal(policy.select([cpu, gpu], request([1])).id, 2n, 'gpu 7/8 < cpu 1/1');
});

test('busy thresholds skip busy workers and reject with 529 when all are busy', () => {
  const router = new PushRouter('m', createRouterPolicy('round-robin'), {
    busyThresholds: { activeDecodeBlocksThreshold: 0.5, activePrefillTokensThreshold: 10, activePrefillTokensThresholdFrac: null },
  });
  const full: WorkerInstance = { id: 1n, client: engine(), capacity: () => ({ kvUsedBlocks: 90, kvTotalBlocks: 100 }) };
  const idle: WorkerInstance = { id: 2n, client: engine(), capacity: () => ({ kvUsedBlocks: 0, kvTotalBlocks: 100 }) };
  router.setInstances([full, idle]);
  for (let i = 0; i < 3; i++) assert.equal(router.pick(request([1])).id, 2n);
  router.generate(request(Array.from({ length: 20 }, (_, i) => i)), ctx('long'));
  assert.throws(() => router.pick(request([1])), (err: unknown) => {
    assert.ok(err instanceof OverloadedError);
    assert.equal(err.httpStatus, 529);
    assert.match(err.message, /^Service temporarily overloaded: all 2 workers of model m are busy \(KV block usage 0\.900 > active_decode_blocks_threshold 0\.5\)/);
    return true;
  });
});

test('the frac threshold compares with max_num_batched_tokens', () => {
  const router = new PushRouter('m', createRouterPolicy('random'), {
    busyThresholds: { activeDecodeBlocksThreshold: null, activePrefillTokensThreshold: null, activePrefillTokensThresholdFrac: 0.5 },
  });
  router.setInstances([{ id: 1n, client: engine(), capacity: () => ({ kvUsedBlocks: 0, kvTotalBlocks: 1, maxNumBatchedTokens: 8 }) }]);
  router.generate(request([1, 2, 3, 4]), ctx('a'));
  router.pick(request([1]));
  router.generate(request([1]), ctx('b'));
  assert.throws(() => router.pick(request([1])), /active prefill tokens 5 > active_prefill_tokens_threshold_frac 0.5 x max_num_batched_tokens 8/);
});
