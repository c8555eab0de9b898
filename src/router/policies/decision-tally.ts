// What a KV-aware policy predicted, tallied per decision (protocols/tally.ts).
import { Tally } from '../../protocols/index.js';

const OVERLAP_BLOCK_BOUNDS = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];
/** Upstream's kv_hit_rate buckets: 0 to 1 in steps of 0.05. */
const HIT_RATE_BOUNDS = Array.from({ length: 21 }, (_, i) => Math.round(i * 5) / 100);

/** What a KV-aware policy predicted at each of its decisions. */
export class RoutingDecisionStats {
  /** Cached prefix blocks on the chosen worker. */
  readonly overlapBlocks = new Tally(OVERLAP_BLOCK_BOUNDS);
  /** Predicted cached tokens / prompt tokens on the chosen worker. */
  readonly kvHitRate = new Tally(HIT_RATE_BOUNDS);

  decided(overlapBlocks: number, blockSize: number, promptTokens: number): void {
    this.overlapBlocks.observe(overlapBlocks);
    this.kvHitRate.observe(promptTokens > 0 ? Math.min(1, (overlapBlocks * blockSize) / promptTokens) : 0);
  }
}
