import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickCandidate, workerCosts, type Candidate } from '../../../src/router/kv/index.js';

const WEIGHTS = {
  overlapScoreCredit: 1,
  overlapScoreCreditDecay: 0,
  prefillLoadScale: 1,
  decodeActiveRequestWeight: 0,
  hostCacheHitWeight: 0.75,
  diskCacheHitWeight: 0.25,
};
const cand = (c: Partial<Candidate>): Candidate => ({
  overlapBlocks: 0, activePrefillTokens: 0, potentialDecodeBlocks: 0, activeRequests: 0, treeSize: 0, ...c,
});

test('classic doc example: 8+10=18, 5+5=10, 2+9=11 picks worker 2', () => {
  // 10-block prompt of 16-token blocks; prefill blocks left = 10 - overlap.
  const candidates = [
    cand({ overlapBlocks: 2, potentialDecodeBlocks: 10 }),
    cand({ overlapBlocks: 5, potentialDecodeBlocks: 5 }),
    cand({ overlapBlocks: 8, potentialDecodeBlocks: 9 }),
  ];
  const costs = workerCosts(candidates, 160, 16, WEIGHTS);
  assert.deepEqual(costs, [18, 10, 11]);
  assert.equal(pickCandidate(costs, [0, 0, 0], 0), 1);
});

test('prefill load scale, active prefill tokens, request weight and the clamp at zero', () => {
  const costs = workerCosts(
    [cand({ activePrefillTokens: 32, potentialDecodeBlocks: 1, activeRequests: 3 }), cand({ overlapBlocks: 20 })],
    64, 16, { ...WEIGHTS, prefillLoadScale: 2, decodeActiveRequestWeight: 0.5 },
  );
  assert.deepEqual(costs, [2 * 6 + 1 + 1.5, 0]);
});

test('credit 0 ignores overlap (load-aware); credit decay shrinks credit on busier workers', () => {
  assert.deepEqual(workerCosts([cand({ overlapBlocks: 4 })], 64, 16, { ...WEIGHTS, overlapScoreCredit: 0 }), [4]);
  const [idle, busy] = workerCosts(
    [cand({ overlapBlocks: 4 }), cand({ overlapBlocks: 4, activePrefillTokens: 64 })],
    64, 16, { ...WEIGHTS, overlapScoreCreditDecay: 1 },
  );
  // busy: excess = (64/16)/4 = 1 → credit halves: 8 - 2 = 6.
  assert.equal(idle, 0);
  assert.equal(busy, 6);
});

test('ties at temperature 0 go to the smallest tree, then at random among equals', () => {
  assert.equal(pickCandidate([3, 3, 4], [10, 2, 0], 0), 1);
  const seen = new Set<number>();
  let seed = 7;
  const rng = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let i = 0; i < 30; i++) seen.add(pickCandidate([1, 1, 1], [0, 0, 0], 0, rng));
  assert.ok(seen.size > 1);
});

test('a single candidate is always returned, at any temperature', () => {
  for (const t of [0, 0.5, 10]) assert.equal(pickCandidate([42], [0], t), 0);
});

test('softmax sampling: p ∝ exp(-(c-min)/((max-min)T)); equal costs are uniform', () => {
  const costs = [0, 1];
  // p0 = 1/(1+e^-1) ≈ 0.731 at T=1.
  assert.equal(pickCandidate(costs, [0, 0], 1, () => 0.73), 0);
  assert.equal(pickCandidate(costs, [0, 0], 1, () => 0.74), 1);
  assert.equal(pickCandidate([5, 5, 5], [0, 0, 0], 1, () => 0.5), 1);
  const counts = [0, 0, 0];
  let seed = 1;
  const rng = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let i = 0; i < 3000; i++) counts[pickCandidate([0, 1, 2], [0, 0, 0], 0.5, rng)]!++;
  assert.ok(counts[0]! > counts[1]! && counts[1]! > counts[2]! && counts[2]! > 0, String(counts));
});
