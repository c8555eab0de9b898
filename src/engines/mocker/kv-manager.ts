// Simulated paged KV cache (reference/router.md §8.4): ref-counted active blocks, an LRU pool of
// cached inactive blocks, and the Stored/Removed events a real engine would publish.
import type { KvCacheEventData, KvCacheStoredBlock } from '../../protocols/index.js';

/**
 * A bigint is a full block named by its sequence hash (shareable, cached after release, announced in
 * events). A number is a block private to one request: the partial block being filled, or any block
 * when prefix caching is off; it is dropped on release and never announced.
 */
export type BlockId = bigint | number;

export type KvEventSink = (data: KvCacheEventData) => void;

export class KvBlockManager {
  private readonly active = new Map<BlockId, number>();
  /**
   * Cached blocks, each with the stamp of its release. Insertion order is recency: the first key is
   * the least recently released block.
   */
  private readonly inactive = new Map<bigint, number>();
  /**
   * The releases in order, as (block, stamp) pairs; a pair whose block was revived (or released again
   * since) is stale. Eviction takes the oldest live pair from here: asking the map for its first key
   * scans every entry deleted from its front since the table was last rebuilt, which in a full cache
   * (one eviction per new block) costs microseconds per eviction.
   */
  private readonly released: bigint[] = [];
  private readonly releaseStamps: number[] = [];
  private releasedHead = 0;
  private stamp = 0;
  /**
   * Each cached full block's parent and tokens hash, as its store event named them, so the whole
   * cache can be announced again (`announce`). Kept only when events are emitted.
   */
  private readonly stored = new Map<bigint, { parent: bigint | null; tokensHash: bigint }>();

  constructor(
    readonly capacity: number,
    private readonly emit: KvEventSink | null = null,
  ) {}

  get numActiveBlocks(): number {
    return this.active.size;
  }

  get numInactiveBlocks(): number {
    return this.inactive.size;
  }

  /** Reference count of an active block, 0 if it is not active. */
  refCount(block: BlockId): number {
    return this.active.get(block) ?? 0;
  }

  /** Inactive (cached, evictable) blocks, least recently released first. */
  inactiveBlocks(): bigint[] {
    return [...this.inactive.keys()];
  }

  /** Present in the cache, active or not: a prefix-cache hit. */
  isCached(block: BlockId): boolean {
    return this.active.has(block) || (typeof block === 'bigint' && this.inactive.has(block));
  }

  /** How many of `blocks` are in neither pool. */
  probeNewBlocks(blocks: readonly BlockId[]): number {
    let n = 0;
    for (const b of blocks) if (!this.isCached(b)) n++;
    return n;
  }

  /**
   * Takes a reference on every block, reviving cached ones and inserting new ones (evicting LRU
   * inactive blocks when full). All-or-nothing: returns false, changing nothing, if afterwards more
   * than `maxActive` blocks would be active. `localHashes` are the tokens hashes of the bigint blocks,
   * in order; `parent` is the block preceding blocks[0] in its sequence.
   */
  use(
    blocks: readonly BlockId[],
    localHashes: readonly bigint[],
    parent: bigint | null = null,
    maxActive: number = this.capacity,
  ): boolean {
    let activated = 0;
    for (const b of blocks) if (!this.active.has(b)) activated++;
    if (this.active.size + activated > Math.min(maxActive, this.capacity)) return false;

    // Revive first so that evictions below never pick a block this call is about to use.
    for (const b of blocks) {
      if (typeof b === 'bigint' && this.inactive.delete(b)) this.active.set(b, 0);
    }
    let stored: KvCacheStoredBlock[] | null = null;
    let storedParent = parent;
    /** The full block before the current one in this sequence. */
    let previous = parent;
    let full = 0;
    // The blocks evicted to make room go out as one event, before the blocks stored in their place
    // (an engine announces a step's cache changes as one batch, not one message per block).
    let evicted: bigint[] | null = null;
    for (const b of blocks) {
      const isFull = typeof b === 'bigint';
      const ref = this.active.get(b);
      if (ref !== undefined) {
        this.active.set(b, ref + 1);
        if (isFull && stored === null) storedParent = b;
      } else {
        if (this.active.size + this.inactive.size >= this.capacity) {
          const victim = this.evictOne();
          if (victim !== null) (evicted ??= []).push(victim);
        }
        this.active.set(b, 1);
        if (isFull) {
          (stored ??= []).push({ block_hash: b, tokens_hash: localHashes[full]!, mm_extra_info: null });
          if (this.emit) this.stored.set(b, { parent: previous, tokensHash: localHashes[full]! });
        }
      }
      if (isFull) {
        full++;
        previous = b as bigint;
      }
    }
    if (evicted && this.emit) this.emit({ removed: { block_hashes: evicted } });
    if (stored && this.emit) this.emit({ stored: { parent_hash: storedParent, blocks: stored } });
    return true;
  }

  /** Drops one reference each; a full block at zero stays cached as inactive, a private one is freed. */
  deref(blocks: readonly BlockId[]): void {
    for (const b of blocks) {
      const ref = this.active.get(b);
      if (ref === undefined) continue;
      if (ref > 1) {
        this.active.set(b, ref - 1);
        continue;
      }
      this.active.delete(b);
      if (typeof b === 'bigint') this.release(b);
    }
  }

  /** Removes blocks from the cache outright, announcing the full ones. */
  destroy(blocks: readonly BlockId[]): void {
    const removed: bigint[] = [];
    for (const b of blocks) {
      if (this.active.delete(b) && typeof b === 'bigint') {
        removed.push(b);
        this.stored.delete(b);
      }
    }
    if (removed.length > 0 && this.emit) this.emit({ removed: { block_hashes: removed } });
  }

  /**
   * Forgets every cached block no request holds (a prefix-cache reset), announcing them as removed;
   * blocks in use stay. Returns how many were dropped.
   */
  dropCached(): number {
    const dropped = [...this.inactive.keys()];
    this.inactive.clear();
    this.rebuildReleased();
    if (dropped.length > 0 && this.emit) this.emit({ removed: { block_hashes: dropped } });
    return dropped.length;
  }

  /** A private partial block filled up: it becomes (or merges into) the full block `seqHash`. */
  promote(partial: number, seqHash: bigint, parent: bigint | null, localHash: bigint): void {
    if (!this.active.delete(partial)) throw new Error(`promote: block ${partial} is not active`);
    const ref = this.active.get(seqHash);
    if (ref !== undefined) {
      this.active.set(seqHash, ref + 1);
    } else if (this.inactive.delete(seqHash)) {
      this.active.set(seqHash, 1);
    } else {
      this.active.set(seqHash, 1);
      if (this.emit) {
        this.stored.set(seqHash, { parent, tokensHash: localHash });
        this.emit({ stored: { parent_hash: parent, blocks: [{ block_hash: seqHash, tokens_hash: localHash, mm_extra_info: null }] } });
      }
    }
  }

  /**
   * Announces the whole cache again: `cleared`, then every cached full block, parents before
   * children, a chain of blocks per store event. A router that missed events (its event plane was
   * down) then holds exactly this cache.
   */
  announce(): void {
    const emit = this.emit;
    if (!emit) return;
    emit('cleared');
    const children = new Map<bigint | null, bigint[]>();
    for (const [block, { parent }] of this.stored) {
      // A block whose parent is no longer cached starts a chain of its own.
      const from = parent !== null && this.stored.has(parent) ? parent : null;
      const list = children.get(from);
      if (list) list.push(block);
      else children.set(from, [block]);
    }
    const pending = [...(children.get(null) ?? [])].reverse();
    while (pending.length > 0) {
      let block = pending.pop()!;
      const first = this.stored.get(block)!;
      const chain: KvCacheStoredBlock[] = [];
      for (;;) {
        chain.push({ block_hash: block, tokens_hash: this.stored.get(block)!.tokensHash, mm_extra_info: null });
        const next = children.get(block);
        if (!next) break;
        // The first child continues this chain; its siblings start chains of their own later.
        for (let i = next.length - 1; i >= 1; i--) pending.push(next[i]!);
        block = next[0]!;
      }
      emit({ stored: { parent_hash: first.parent, blocks: chain } });
    }
  }

  private release(block: bigint): void {
    const stamp = this.stamp++;
    this.inactive.set(block, stamp);
    this.released.push(block);
    this.releaseStamps.push(stamp);
    // Blocks revived and released again leave stale pairs behind; a cache that rarely evicts would
    // otherwise keep them all.
    if (this.released.length - this.releasedHead > 2 * this.inactive.size + 1024) this.rebuildReleased();
  }

  /** The queue anew from the cached blocks, in their release order. */
  private rebuildReleased(): void {
    this.released.length = 0;
    this.releaseStamps.length = 0;
    this.releasedHead = 0;
    for (const [block, stamp] of this.inactive) {
      this.released.push(block);
      this.releaseStamps.push(stamp);
    }
  }

  /** Drops the least recently released block; returns it (null when nothing is cached). */
  private evictOne(): bigint | null {
    const released = this.released;
    const stamps = this.releaseStamps;
    while (this.releasedHead < released.length) {
      const at = this.releasedHead++;
      const block = released[at]!;
      if (this.inactive.get(block) !== stamps[at]) continue;
      this.inactive.delete(block);
      this.stored.delete(block);
      this.compactReleased();
      return block;
    }
    return null;
  }

  /** Drops the pairs already passed once they are most of the queue. */
  private compactReleased(): void {
    const head = this.releasedHead;
    if (head < 1024 || head * 2 < this.released.length) return;
    this.released.splice(0, head);
    this.releaseStamps.splice(0, head);
    this.releasedHead = 0;
  }
}
