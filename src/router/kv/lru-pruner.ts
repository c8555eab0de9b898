// Approximate mode with `--router-approximate-cache-policy lru` (upstream, experimental): the
// router's predictions of each worker rank's cache are bounded by the KV blocks the worker
// advertises, and under pressure the least recently routed blocks go first, as an engine's own
// LRU would evict them. Blocks that requests in flight still hold are not evicted. A worker that
// advertises no capacity keeps its predictions until it leaves.
import { blockKey } from './active-sequences.js';
import type { ExpiredBlock, PredictionPruner } from './ttl-pruner.js';
import { deleteWorkerRanks } from './worker-rank.js';

export class LruPruner implements PredictionPruner {
  /** Per (worker, dp rank) key: block key → seq hash, least recently routed first (a Map keeps insertion order). */
  private readonly byWorker = new Map<bigint, Map<number, bigint>>();
  private count = 0;

  constructor(
    /** KV blocks of the worker rank, or null when it advertises none. */
    private readonly capacityOf: (worker: bigint) => number | null,
    /** Whether a request in flight on the worker rank holds the block. */
    private readonly referenced: (worker: bigint, key: number) => boolean,
  ) {}

  get size(): number {
    return this.count;
  }

  /** The worker rank was just sent these blocks (seq hashes in prefix order): they become its most recent. */
  record(worker: bigint, seqHashes: readonly bigint[]): void {
    let blocks = this.byWorker.get(worker);
    if (!blocks) this.byWorker.set(worker, (blocks = new Map()));
    // Deepest first: the prompt's root ends most recent, so a prefix outlives its own tail.
    for (let i = seqHashes.length - 1; i >= 0; i--) {
      const hash = seqHashes[i]!;
      const key = blockKey(hash);
      if (!blocks.delete(key)) this.count++;
      blocks.set(key, hash);
    }
  }

  /** The blocks each over-full worker rank must forget, least recently routed and unreferenced first. */
  popExpired(): ExpiredBlock[] {
    const out: ExpiredBlock[] = [];
    for (const [worker, blocks] of this.byWorker) {
      const capacity = this.capacityOf(worker);
      if (capacity === null || blocks.size <= capacity) continue;
      for (const [key, hash] of blocks) {
        if (blocks.size <= capacity) break;
        if (this.referenced(worker, key)) continue;
        blocks.delete(key);
        this.count--;
        out.push({ worker, hash });
      }
    }
    return out;
  }

  removeWorker(worker: bigint): void {
    this.count -= deleteWorkerRanks(this.byWorker, worker);
  }
}
