// The load each worker last reported (`ActiveLoad` on the event plane), read by busy detection
// through each WorkerInstance's `capacity()`. Totals are not in the reports: they come from the
// worker's model card (`runtime_config.total_kv_blocks`, `max_num_batched_tokens`).
import type { ActiveLoad } from '../protocols/index.js';
import type { WorkerCapacity } from './worker-instance.js';

/** A worker's fixed capacity, from its card; unknown fields leave the checks that need them off. */
export interface WorkerTotals {
  kvTotalBlocks?: number;
  maxNumBatchedTokens?: number;
}

export class WorkerLoads {
  /** worker id → dp rank → KV blocks in use. */
  private readonly used = new Map<bigint, Map<number, number>>();

  apply(load: ActiveLoad): void {
    const blocks = load.kv_used_blocks ?? load.active_decode_blocks;
    if (blocks === undefined) return;
    let ranks = this.used.get(load.worker_id);
    if (!ranks) this.used.set(load.worker_id, (ranks = new Map()));
    ranks.set(load.dp_rank, blocks);
  }

  /** The worker left: its reports no longer count. */
  forget(workerId: bigint): void {
    this.used.delete(workerId);
  }

  /** Blocks in use on the worker's fullest rank (the card's total is per rank); 0 before any report. */
  kvUsedBlocks(workerId: bigint): number {
    let most = 0;
    for (const blocks of this.used.get(workerId)?.values() ?? []) most = Math.max(most, blocks);
    return most;
  }

  /** The `capacity()` of a WorkerInstance: live use against the card's totals. */
  capacityOf(workerId: bigint, totals: WorkerTotals): () => WorkerCapacity {
    return () => ({
      kvUsedBlocks: this.kvUsedBlocks(workerId),
      kvTotalBlocks: totals.kvTotalBlocks ?? 0,
      maxNumBatchedTokens: totals.maxNumBatchedTokens,
    });
  }
}
