// Busy detection (reference/router.md §4.5, http.md §7.2): a worker over a threshold is skipped;
// when every worker is busy the request is rejected as overloaded.
import { OverloadedError } from '../protocols/index.js';

export interface BusyThresholds {
  /** Busy when KV block usage exceeds this fraction (0..1) of the worker's blocks. */
  activeDecodeBlocksThreshold: number | null;
  /** Busy when the worker's not-yet-prefilled prompt tokens exceed this count. */
  activePrefillTokensThreshold: number | null;
  /** Busy when they exceed this multiple of the worker's max_num_batched_tokens (ORed with the count). */
  activePrefillTokensThresholdFrac: number | null;
}

export const NO_BUSY_THRESHOLDS: Readonly<BusyThresholds> = Object.freeze({
  activeDecodeBlocksThreshold: null,
  activePrefillTokensThreshold: null,
  activePrefillTokensThresholdFrac: null,
});

/** What busy detection needs to know about one worker; fields it cannot know are undefined. */
export interface WorkerLoadSnapshot {
  kvUsedBlocks?: number;
  kvTotalBlocks?: number;
  activePrefillTokens: number;
  maxNumBatchedTokens?: number;
}

export function anyThresholdSet(t: BusyThresholds): boolean {
  return t.activeDecodeBlocksThreshold !== null || t.activePrefillTokensThreshold !== null || t.activePrefillTokensThresholdFrac !== null;
}

/** Why the worker is busy, or null when it is not. */
export function busyReason(t: BusyThresholds, load: WorkerLoadSnapshot): string | null {
  const decode = t.activeDecodeBlocksThreshold;
  if (decode !== null && load.kvUsedBlocks !== undefined && load.kvTotalBlocks) {
    const used = load.kvUsedBlocks / load.kvTotalBlocks;
    if (used > decode) return `KV block usage ${used.toFixed(3)} > active_decode_blocks_threshold ${decode}`;
  }
  const tokens = t.activePrefillTokensThreshold;
  if (tokens !== null && load.activePrefillTokens > tokens) {
    return `active prefill tokens ${load.activePrefillTokens} > active_prefill_tokens_threshold ${tokens}`;
  }
  const frac = t.activePrefillTokensThresholdFrac;
  if (frac !== null && load.maxNumBatchedTokens && load.activePrefillTokens > frac * load.maxNumBatchedTokens) {
    return `active prefill tokens ${load.activePrefillTokens} > active_prefill_tokens_threshold_frac ${frac} x max_num_batched_tokens ${load.maxNumBatchedTokens}`;
  }
  return null;
}

export function allWorkersBusyError(model: string, workers: number, example: string): OverloadedError {
  return new OverloadedError(`Service temporarily overloaded: all ${workers} workers of model ${model} are busy (${example}); retry later`);
}
