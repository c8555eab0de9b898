// Worker-selection policies: the two-tier policy's tiers and thresholds, a default-cost-fn
// instance's weights, and a kv router that picks a different worker under each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeLocalBlockHashes, computeSequenceHashes, type PreprocessedRequest } from '../../../src/protocols/index.js';
import { DEFAULT_KV_ROUTER_OPTIONS, KvRouterPolicy, type WorkerInstance } from '../../../src/router/index.js';
import { buildWorkerSelection, type Candidate, type CostSettings } from '../../../src/router/kv/index.js';

/** The frontend's default weights. */
const BASE: CostSettings = DEFAULT_KV_ROUTER_OPTIONS;

/** Workers as (device overlap blocks, active requests); everything else idle. */
function candidates(...workers: [overlap: number, active: number][]): Candidate[] {
  return workers.map(([overlapBlocks, activeRequests]) => ({ overlapBlocks, activeRequests, activePrefillTokens: 0, potentialDecodeBlocks: 0, treeSize: 0 }));
}

const twoTier = (parameters: Record<string, number> = {}) =>
  buildWorkerSelection({ type: 'dynamo-two-tier-cost-fn', name: 'tt', parameters }, BASE);

// A prompt of 20 blocks of 8 tokens.
const ISL = 160;
const BLOCK = 8;

test('two-tier: a worker holding more than half the prompt wins over an idle one', () => {
  assert.equal(twoTier().pick(candidates([0, 0], [13, 5]), ISL, BLOCK).index, 1);
});

test('two-tier: the cache threshold is strict (exactly half does not count), and a parameter moves it', () => {
  assert.equal(twoTier().pick(candidates([0, 0], [10, 5]), ISL, BLOCK).index, 0, 'half the blocks: load decides');
  assert.equal(twoTier().pick(candidates([0, 0], [5, 5]), ISL, BLOCK).index, 0);
  assert.equal(twoTier({ cache_threshold: 0.2 }).pick(candidates([0, 0], [5, 5]), ISL, BLOCK).index, 1, '5 of 20 is over 0.2');
});

test('two-tier: load decides first, but only past both the spread and the ratio', () => {
  // Spread 50 > 32 and 50 > 1.1 × 0: the idle worker, whatever the other caches.
  assert.equal(twoTier().pick(candidates([0, 0], [20, 50]), ISL, BLOCK).index, 0);
  // Spread 60 > 32, but 660 is not > 1.1 × 600: overlap still decides.
  assert.equal(twoTier().pick(candidates([0, 600], [20, 660]), ISL, BLOCK).index, 1);
  assert.equal(twoTier().pick(candidates([0, 600], [20, 661]), ISL, BLOCK).index, 0);
  // A tighter spread gate lets load decide earlier.
  assert.equal(twoTier({ balance_abs_threshold: 2 }).pick(candidates([0, 0], [20, 5]), ISL, BLOCK).index, 0);
});

test('two-tier: among workers with the best overlap, the least loaded; without enough overlap, the least loaded of all', () => {
  assert.equal(twoTier().pick(candidates([15, 9], [15, 3], [0, 0]), ISL, BLOCK).index, 1);
  assert.equal(twoTier().pick(candidates([2, 9], [0, 4], [1, 1]), ISL, BLOCK).index, 2);
});

test('a dynamo-default-cost-fn instance changes the weights it sets and keeps the others', () => {
  const selection = buildWorkerSelection({ type: 'dynamo-default-cost-fn', name: 'c', parameters: { overlap_score_credit: 0, router_temperature: 0.5 } }, BASE);
  assert.equal(selection.cost.overlapScoreCredit, 0);
  assert.equal(selection.cost.temperature, 0.5);
  assert.equal(selection.cost.hostCacheHitWeight, 0.75);
  assert.equal(buildWorkerSelection(null, BASE).cost, BASE, 'no instance: the built-in selector with the frontend weights');
});

// The kv router over two workers: worker 1 idle with nothing cached; worker 2 holds 12 of the
// prompt's 20 blocks but runs four long requests. The cost model prefers the idle worker; the
// two-tier policy prefers the cache.
function scenario(policy: KvRouterPolicy): bigint {
  const prompt = Array.from({ length: ISL }, (_, i) => i);
  const local = computeLocalBlockHashes(prompt.slice(0, 12 * BLOCK), BLOCK);
  const seq = computeSequenceHashes(local);
  policy.applyKvEvent(2n, { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: local.map((l, i) => ({ tokens_hash: l, block_hash: seq[i]!, mm_extra_info: null })) } } });
  for (let r = 0; r < 4; r++) {
    const busy = Array.from({ length: ISL }, (_, i) => 10_000 * (r + 1) + i);
    policy.sequences.addRequest({ requestId: `busy-${r}`, worker: 2n, seqHashes: computeSequenceHashes(computeLocalBlockHashes(busy, BLOCK)), isl: ISL, overlapBlocks: 0 });
  }
  const workers: WorkerInstance[] = [1n, 2n].map((id) => ({ id, client: { generate: () => assert.fail('not dispatched') } }));
  policy.onInstancesChanged(workers);
  const request: PreprocessedRequest = { model: 'm', token_ids: prompt, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] };
  return policy.select(workers, request).id;
}

test('the stage selection changes which worker the kv router picks', () => {
  assert.equal(scenario(new KvRouterPolicy({ blockSize: BLOCK })), 1n, 'the cost model: the idle worker');
  assert.equal(scenario(new KvRouterPolicy({ blockSize: BLOCK, workerSelection: { type: 'dynamo-two-tier-cost-fn', name: 'tt', parameters: {} } })), 2n, 'two-tier: 12 of 20 blocks cached');
  // A default-cost-fn instance weighing prompt work heavily, with full credit for the cache, also goes to the cache:
  // worker 1 costs 5 × 20 + 20 blocks, worker 2 (its prompt and queue credited away) 80 active + 20 new blocks.
  const heavy = { overlap_score_credit: 10, prefill_load_scale: 5 };
  assert.equal(scenario(new KvRouterPolicy({ blockSize: BLOCK, workerSelection: { type: 'dynamo-default-cost-fn', name: 'c', parameters: heavy } })), 2n);
});

test('two-tier reads device overlap even with no overlap credit', () => {
  const policy = new KvRouterPolicy({ blockSize: BLOCK, overlapScoreCredit: 0, workerSelection: { type: 'dynamo-two-tier-cost-fn', name: 'tt', parameters: {} } });
  assert.equal(scenario(policy), 2n);
  assert.equal(policy.lastDecision!.overlapBlocks, 12);
  assert.equal(policy.lastDecision!.cost, null, 'two-tier ranks without costs');
});
