// Worker load as the newest upstream workers push it on the event plane (reference/router.md §8.4:
// `ActiveLoad` on `kv_metrics`). Every count is optional: a worker sends what it knows.

/** One worker's (one data-parallel rank's) load; `worker_id` is the u64 instance id. */
export interface ActiveLoad {
  worker_id: bigint;
  dp_rank: number;
  active_decode_blocks?: number;
  active_prefill_tokens?: number;
  /** KV blocks in use: what busy detection compares with the card's `runtime_config.total_kv_blocks`. */
  kv_used_blocks?: number;
  waiting_requests?: number;
}

/** What an engine reports about itself; the publisher adds the worker id. */
export type EngineLoad = Omit<ActiveLoad, 'worker_id'>;
