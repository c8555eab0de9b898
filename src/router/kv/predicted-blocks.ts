// Blocks the router predicts a worker holds because it just routed a request there, kept in an
// indexer until their pruner forgets them: approximate mode predicts into the router's own indexer
// (no KV events), predict-on-route (`--router-predicted-ttl-secs`) into a side indexer read beside
// the one KV events feed, covering the time before a worker's events arrive.
import type { KvIndexer } from './indexer.js';
import type { PredictionPruner } from './ttl-pruner.js';
import { rankOfKey, workerOfKey } from './worker-rank.js';

export class PredictedBlocks {
  constructor(
    readonly indexer: KvIndexer,
    private readonly pruner: PredictionPruner,
  ) {}

  /** The (worker, rank) `key` was sent a prompt of these local and sequence block hashes. */
  predict(key: bigint, local: readonly bigint[], seq: readonly bigint[]): void {
    if (local.length === 0) return;
    this.indexer.applyEvent(workerOfKey(key), {
      event_id: 0,
      dp_rank: rankOfKey(key),
      data: { stored: { parent_hash: null, blocks: local.map((l, i) => ({ block_hash: seq[i]!, tokens_hash: l, mm_extra_info: null })) } },
    });
    this.pruner.record(key, seq);
  }

  /** Forgets what the pruner says is stale. */
  prune(): void {
    for (const e of this.pruner.popExpired()) {
      this.indexer.applyEvent(workerOfKey(e.worker), { event_id: 0, dp_rank: rankOfKey(e.worker), data: { removed: { block_hashes: [e.hash] } } });
    }
  }

  /** Forgets a worker's predictions (its indexer entries too when `ownIndexer`: a side indexer). */
  removeWorker(worker: bigint, ownIndexer: boolean): void {
    this.pruner.removeWorker(worker);
    if (ownIndexer) this.indexer.removeWorker(worker);
  }
}
