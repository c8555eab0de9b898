// Upstream's `--shared-cache-type hicache`: an external KV pool every worker can fetch from
// (SGLang HiCache's L3 on Mooncake). Upstream reads the pool's own event stream; here the pool is
// learned from what workers report in the `external` storage tier of their KV events. The pool
// belongs to no worker: a block stored by one is a hit for all, and a removal by any takes it out.
// Blocks are kept by their public chain hash, which says both the content and its position's
// prefix, so a request's hits are the positions whose chain hash the pool holds.
import { chainSequenceHash, type KvCacheEvent } from '../../../protocols/index.js';

export class SharedCachePool {
  /** Reported (engine) block hash → the public chain hash it stands for: removals name engine hashes. */
  private readonly chainOf = new Map<bigint, bigint>();
  private readonly blocks = new Set<bigint>();

  get size(): number {
    return this.blocks.size;
  }

  apply(event: KvCacheEvent): void {
    const data = event.data;
    if (data === 'cleared') {
      this.chainOf.clear();
      this.blocks.clear();
    } else if ('stored' in data) {
      const { parent_hash: parentHash, blocks } = data.stored;
      let parent = parentHash === null ? null : this.chainOf.get(parentHash);
      // A block whose parent the pool never saw cannot be placed in a prefix: it is not counted.
      if (parent === undefined) return;
      for (const block of blocks) {
        const chain: bigint = parent === null ? block.tokens_hash : chainSequenceHash(parent, block.tokens_hash);
        this.chainOf.set(block.block_hash, chain);
        this.blocks.add(chain);
        parent = chain;
      }
    } else {
      for (const hash of data.removed.block_hashes) {
        const chain = this.chainOf.get(hash);
        if (chain === undefined) continue;
        this.chainOf.delete(hash);
        this.blocks.delete(chain);
      }
    }
  }

  /** The positions (block indexes) of a prompt, given by its public chain hashes, that the pool holds, ascending. */
  hits(chain: readonly bigint[]): number[] {
    const out: number[] = [];
    for (let i = 0; i < chain.length; i++) if (this.blocks.has(chain[i]!)) out.push(i);
    return out;
  }
}

/** Upstream's `hits_beyond`: the hits at positions at or past a worker's device prefix (blocks it would fetch, not recompute). */
export function hitsBeyond(hits: readonly number[], devicePrefix: number): number {
  let n = 0;
  for (const position of hits) if (position >= devicePrefix) n++;
  return n;
}
