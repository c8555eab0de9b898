// KV cache events as workers publish them (upstream RouterEvent / KvCacheEvent, JSON form).
// Hashes are u64 and exceed 2^53, so they are bigint here; JSON encoding writes them as bare numbers.

export interface KvCacheStoredBlock {
  /** Sequence (chain) hash of the block: what the engine calls the block. */
  block_hash: bigint;
  /** Local hash of the block's own tokens (XXH3-64, seed 1337 + salt). */
  tokens_hash: bigint;
  mm_extra_info?: null;
}

export type KvCacheEventData =
  | { stored: { parent_hash: bigint | null; blocks: KvCacheStoredBlock[] } }
  | { removed: { block_hashes: bigint[] } }
  | 'cleared';

export interface KvCacheEvent {
  event_id: number;
  data: KvCacheEventData;
  dp_rank: number;
}

/** Where the blocks of an event live (upstream StorageTier); absent means device. */
export type StorageTier = 'device' | 'host_pinned' | 'disk' | 'external';

export interface RouterEvent {
  worker_id: bigint;
  storage_tier?: StorageTier;
  event: KvCacheEvent;
  /** The session whose request the stored blocks were cached for, when the publisher attributes them (upstream's optional session_id). */
  session_id?: string;
}
