// What the KV indexers hold of one prompt, tier by tier: what a served indexer answers
// (`--serve-indexer`) and a consumer router scores with (`--use-remote-indexer`).
import type { WorkerOverlap } from './indexer.js';

export type LowerTier = 'host_pinned' | 'disk';

/** What the indexer holds of one prompt, per tier (a served indexer's answer). */
export interface TieredMatches {
  device: WorkerOverlap[];
  lower: [LowerTier, WorkerOverlap[]][];
}

/** Where a consumer router gets a prompt's matches: the indexer another router serves. */
export interface RemoteMatches {
  /** The matches of the prompt's local block hashes; null when none could be had (route on load alone). */
  query(localHashes: readonly bigint[], signal: AbortSignal): Promise<TieredMatches | null>;
}
