// Approximate mode (reference/router.md §6): without KV events the router assumes the blocks of
// each routed request are cached on the chosen worker for a TTL. This keeps those predictions and
// says which to forget: expired ones, and the oldest when the predicted tree outgrows its cap.
// Every prediction has the same TTL, so expiry order is insertion order and a FIFO replaces the
// heap; refreshed entries leave a stale FIFO entry behind that is skipped when it surfaces.
import { blockKey } from './active-sequences.js';
import { deleteWorkerRanks } from './worker-rank.js';

export const DEFAULT_MAX_TREE_SIZE = 1 << 20;
export const DEFAULT_PRUNE_TARGET_RATIO = 0.8;

interface Entry {
  worker: bigint;
  key: number;
  hash: bigint;
  expiry: number;
}

export interface ExpiredBlock {
  worker: bigint;
  hash: bigint;
}

/** Keeps approximate mode's predicted blocks and says which to forget (by TTL, or by capacity: lru-pruner.ts). */
export interface PredictionPruner {
  readonly size: number;
  /** Predicts the worker rank holds these blocks (seq hashes in prefix order). */
  record(worker: bigint, seqHashes: readonly bigint[]): void;
  /** The predictions to forget now. */
  popExpired(): ExpiredBlock[];
  /** Forgets a worker, every dp rank of it (keys of worker-rank.ts). */
  removeWorker(worker: bigint): void;
}

export class TtlPruner implements PredictionPruner {
  private readonly timers = new Map<bigint, Map<number, Entry>>();
  private queue: Entry[] = [];
  private head = 0;
  private count = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxTreeSize = DEFAULT_MAX_TREE_SIZE,
    private readonly pruneTargetRatio = DEFAULT_PRUNE_TARGET_RATIO,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Predicts the worker holds these blocks (seq hashes in prefix order) for another TTL. */
  record(worker: bigint, seqHashes: readonly bigint[]): void {
    let byKey = this.timers.get(worker);
    if (!byKey) this.timers.set(worker, (byKey = new Map()));
    const expiry = this.now() + this.ttlMs;
    // Deepest first, so that among equal expiries the deeper blocks are pruned first.
    for (let i = seqHashes.length - 1; i >= 0; i--) {
      const hash = seqHashes[i]!;
      const key = blockKey(hash);
      if (!byKey.has(key)) this.count++;
      const entry = { worker, key, hash, expiry };
      byKey.set(key, entry);
      this.queue.push(entry);
    }
  }

  /** Expired predictions, plus the oldest ones while the tree exceeds its cap (down to the target ratio). */
  popExpired(): ExpiredBlock[] {
    const out: ExpiredBlock[] = [];
    const now = this.now();
    const target = this.count > this.maxTreeSize ? Math.floor(this.maxTreeSize * this.pruneTargetRatio) : this.count;
    while (this.head < this.queue.length) {
      const e = this.queue[this.head]!;
      const live = this.timers.get(e.worker)?.get(e.key) === e;
      if (live && e.expiry > now && this.count <= target) break;
      this.head++;
      if (!live) continue;
      this.timers.get(e.worker)!.delete(e.key);
      this.count--;
      out.push({ worker: e.worker, hash: e.hash });
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  /** The worker rank `key` reported these blocks itself (an event): they are no longer predictions to expire. */
  confirm(key: bigint, seqHashes: readonly bigint[]): void {
    const byKey = this.timers.get(key);
    if (!byKey) return;
    for (const hash of seqHashes) if (byKey.delete(blockKey(hash))) this.count--;
  }

  /** The worker rank `key` cleared its cache: nothing predicted of it remains. */
  forgetKey(key: bigint): void {
    const byKey = this.timers.get(key);
    if (!byKey) return;
    this.count -= byKey.size;
    this.timers.delete(key);
  }

  /** Forgets a worker, every dp rank of it (keys of worker-rank.ts). */
  removeWorker(worker: bigint): void {
    this.count -= deleteWorkerRanks(this.timers, worker);
  }
}
