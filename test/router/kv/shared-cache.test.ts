// --shared-cache-type hicache: blocks workers report in the external tier form one pool every
// worker can fetch from; the KV router credits each worker the pool's blocks past its device prefix
// at --shared-cache-multiplier.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineClient, KvCacheEvent, PreprocessedRequest } from '../../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/protocols/index.js';
import { KvRouterPolicy } from '../../../src/router/index.js';
import { rankKey, workerCosts } from '../../../src/router/kv/index.js';
import { hitsBeyond, SharedCachePool } from '../../../src/router/kv/shared-cache/index.js';

const BLOCK = 4;
const PROMPT = Array.from({ length: 32 }, (_, i) => 100 + i);
const LOCAL = computeLocalBlockHashes(PROMPT, BLOCK);
const CHAIN = computeSequenceHashes(LOCAL);
const request = (): PreprocessedRequest => ({ model: 'm', token_ids: PROMPT, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] });
const idle: EngineClient = { generate: async function* () {} };

/** The prompt's blocks [from, to) stored, as a worker reports them (engine hashes here are the chain's plus an offset). */
function stored(from: number, to: number, engineOffset = 0n): KvCacheEvent {
  return {
    event_id: 1,
    dp_rank: 0,
    data: {
      stored: {
        parent_hash: from === 0 ? null : CHAIN[from - 1]! + engineOffset,
        blocks: LOCAL.slice(from, to).map((tokens_hash, i) => ({ block_hash: CHAIN[from + i]! + engineOffset, tokens_hash, mm_extra_info: null })),
      },
    },
  };
}

test('the pool places reported blocks by their prefix: hits are positions, removals and clears take blocks out', () => {
  const pool = new SharedCachePool();
  pool.apply(stored(0, 3, 7n));
  pool.apply(stored(3, 5, 7n));
  assert.deepEqual(pool.hits(CHAIN), [0, 1, 2, 3, 4]);
  pool.apply({ event_id: 2, dp_rank: 0, data: { removed: { block_hashes: [CHAIN[1]! + 7n] } } });
  assert.deepEqual(pool.hits(CHAIN), [0, 2, 3, 4], 'a hole where the pool dropped a block');
  pool.apply(stored(6, 8, 99n));
  assert.deepEqual(pool.hits(CHAIN), [0, 2, 3, 4], 'blocks whose parent the pool never saw are not placed');
  assert.equal(hitsBeyond(pool.hits(CHAIN), 3), 2);
  pool.apply({ event_id: 3, dp_rank: 0, data: 'cleared' });
  assert.equal(pool.size, 0);
});

test("upstream's worked example: shared hits past the device prefix at the multiplier", () => {
  const weights = { overlapScoreCredit: 1, overlapScoreCreditDecay: 0, prefillLoadScale: 1, decodeActiveRequestWeight: 0, hostCacheHitWeight: 0, diskCacheHitWeight: 0, sharedCacheMultiplier: 0.5 };
  const candidate = (overlapBlocks: number, sharedBeyondBlocks: number) => ({ overlapBlocks, sharedBeyondBlocks, activePrefillTokens: 0, potentialDecodeBlocks: 0, activeRequests: 0, treeSize: 0 });
  assert.deepEqual(workerCosts([candidate(2, 2), candidate(0, 4)], 4, 1, weights), [1, 2]);
});

/** Worker 1 holds the prompt's first 2 blocks on its device but has 6 prompt tokens of others' prefill queued; worker 2 is cold and idle. */
function scenario(sharedCacheType: 'none' | 'hicache', sharedCacheMultiplier = 0.5) {
  const policy = new KvRouterPolicy({ blockSize: BLOCK, trackActiveBlocks: false, sharedCacheType, sharedCacheMultiplier });
  const instances = [1n, 2n].map((id) => ({ id, client: idle }));
  policy.onInstancesChanged(instances);
  policy.applyKvEvent(1n, stored(0, 2));
  policy.sequences.addRequest({ requestId: 'other', worker: rankKey(1n, 0), seqHashes: null, isl: 6, overlapBlocks: 0 });
  // Some worker wrote the whole prompt to the shared pool.
  policy.applyKvEvent(2n, stored(0, 8, 1000n), 'external');
  return policy.select(instances, request()).id;
}

test('with the shared pool counted the cold idle worker wins: the pool narrows the cached worker\'s edge', () => {
  assert.equal(scenario('none'), 1n, 'device overlap outweighs the queued prefill');
  assert.equal(scenario('hicache'), 2n, 'every worker can fetch the pool: the queue decides');
  assert.equal(scenario('hicache', 0), 1n, 'multiplier 0 ignores the pool');
});
