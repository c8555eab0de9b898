// Worker selection cost (reference/router.md §4.3, newest formula; with credit 1 and scale w it is
// the classic `w * prefill_blocks + decode_blocks`) and the pick: minimum cost, or a softmax draw.

export interface SelectorWeights {
  /** Credit per device-cached prefix block, in blocks of prefill avoided. */
  overlapScoreCredit: number;
  /** Shrinks the credit on workers whose prefill queue exceeds the least-loaded one's. */
  overlapScoreCreditDecay: number;
  prefillLoadScale: number;
  decodeActiveRequestWeight: number;
  /** Credit per prefix block found only in the worker's host (CPU) cache. */
  hostCacheHitWeight: number;
  /** Credit per prefix block found only in the worker's disk cache. */
  diskCacheHitWeight: number;
  /** Credit per shared-pool block past the worker's device prefix (`--shared-cache-multiplier`); unset: none. */
  sharedCacheMultiplier?: number;
}

export interface Candidate {
  /** Prefix blocks cached on the device. */
  overlapBlocks: number;
  /** Prefix blocks beyond the device prefix that the host tier holds. */
  hostOverlapBlocks?: number;
  /** Prefix blocks beyond the device and host prefixes that the disk tier holds. */
  diskOverlapBlocks?: number;
  /** Shared-pool blocks at positions past the device prefix (upstream's `hits_beyond`). */
  sharedBeyondBlocks?: number;
  /** Prompt tokens the worker still has to prefill for other requests. */
  activePrefillTokens: number;
  /** Active blocks plus the blocks this request would add. */
  potentialDecodeBlocks: number;
  activeRequests: number;
  /** Blocks cached on the worker (tie-breaker: prefer the emptier one). */
  treeSize: number;
}

/** Cost of each candidate for a request of `isl` prompt tokens; lower is better. */
export function workerCosts(candidates: readonly Candidate[], isl: number, blockSize: number, w: SelectorWeights): number[] {
  const requestBlocks = Math.max(1, Math.ceil(isl / blockSize));
  let minPrefill = Infinity;
  for (const c of candidates) minPrefill = Math.min(minPrefill, c.activePrefillTokens);
  return candidates.map((c) => {
    const rawPrefillBlocks = (c.activePrefillTokens + isl) / blockSize;
    const excess = (c.activePrefillTokens - minPrefill) / blockSize / requestBlocks;
    const decay = w.overlapScoreCreditDecay > 0 ? 1 / (1 + w.overlapScoreCreditDecay * excess) : 1;
    const credit =
      w.overlapScoreCredit * decay * c.overlapBlocks +
      w.hostCacheHitWeight * (c.hostOverlapBlocks ?? 0) +
      w.diskCacheHitWeight * (c.diskOverlapBlocks ?? 0) +
      (w.sharedCacheMultiplier ?? 0) * (c.sharedBeyondBlocks ?? 0);
    const adjusted = Math.max(0, rawPrefillBlocks - credit);
    return w.prefillLoadScale * adjusted + c.potentialDecodeBlocks + w.decodeActiveRequestWeight * c.activeRequests;
  });
}

const TIE_EPSILON = 1e-5;

/**
 * Index of the chosen candidate. Temperature 0: the minimum cost; ties go to the smallest cached
 * tree, then at random. Temperature T > 0: p_i ∝ exp(-(c_i - min) / ((max - min) T)).
 */
export function pickCandidate(
  costs: readonly number[],
  treeSizes: readonly number[],
  temperature: number,
  random: () => number = Math.random,
): number {
  if (costs.length === 1) return 0;
  let min = Infinity;
  let max = -Infinity;
  for (const c of costs) {
    if (c < min) min = c;
    if (c > max) max = c;
  }
  if (temperature > 0) {
    if (max - min < TIE_EPSILON) return Math.floor(random() * costs.length);
    const scale = (max - min) * temperature;
    const weights = costs.map((c) => Math.exp(-(c - min) / scale));
    const total = weights.reduce((a, b) => a + b, 0);
    const u = random() * total;
    let cumulative = 0;
    for (let i = 0; i < weights.length; i++) {
      cumulative += weights[i]!;
      if (cumulative >= u) return i;
    }
    return weights.length - 1;
  }
  let best = -1;
  let ties = 0;
  for (let i = 0; i < costs.length; i++) {
    if (costs[i]! - min >= TIE_EPSILON) continue;
    if (best === -1 || treeSizes[i]! < treeSizes[best]!) {
      best = i;
      ties = 1;
    } else if (treeSizes[i] === treeSizes[best] && random() * ++ties < 1) {
      best = i;
    }
  }
  return best;
}
