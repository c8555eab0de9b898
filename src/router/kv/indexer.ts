// The KV indexer: which worker (and dp rank) holds which cached prefix. Applies protocol KV events
// to the radix tree and answers overlap queries in blocks.
import type { KvCacheEvent, RouterEvent } from '../../protocols/index.js';
import { RadixTree, TreeStatus } from './radix-tree.js';
import { joinU64, splitU64Into } from './u64.js';

export interface WorkerWithDpRank {
  workerId: bigint;
  dpRank: number;
}

export interface WorkerOverlap extends WorkerWithDpRank {
  /** Contiguous prefix blocks the worker holds. */
  blocks: number;
  /** Every block the worker holds (upstream tree_sizes, a tie-breaker). */
  treeSize: number;
}

export const TREE_STATUS_NAMES: Record<TreeStatus, string> = {
  [TreeStatus.Ok]: 'ok',
  [TreeStatus.ParentBlockNotFound]: 'ParentBlockNotFound',
  [TreeStatus.BlockNotFound]: 'BlockNotFound',
  [TreeStatus.InvalidBlockSequence]: 'InvalidBlockSequence',
};

export class KvIndexer {
  readonly tree: RadixTree;
  private readonly slotsById = new Map<bigint, number[]>();
  private readonly workers: WorkerWithDpRank[] = [];
  private scratch = new Uint32Array(256);
  /** Events the tree rejected, by error name. */
  readonly errorCounts = new Map<string, number>();

  constructor(expectedBlocks = 1024) {
    this.tree = new RadixTree(expectedBlocks);
  }

  /** The tree slot of a worker rank, allocated on first sight. */
  slotOf(workerId: bigint, dpRank = 0): number {
    let ranks = this.slotsById.get(workerId);
    if (!ranks) this.slotsById.set(workerId, (ranks = []));
    let slot = ranks[dpRank];
    if (slot === undefined) {
      slot = this.workers.length;
      this.workers.push({ workerId, dpRank });
      ranks[dpRank] = slot;
    }
    return slot;
  }

  workerOfSlot(slot: number): WorkerWithDpRank {
    return this.workers[slot]!;
  }

  applyRouterEvent(event: RouterEvent): TreeStatus {
    return this.applyEvent(event.worker_id, event.event);
  }

  applyEvent(workerId: bigint, event: KvCacheEvent): TreeStatus {
    const slot = this.slotOf(workerId, event.dp_rank);
    const data = event.data;
    let status = TreeStatus.Ok;
    if (data === 'cleared') {
      this.tree.clearWorker(slot);
    } else if ('stored' in data) {
      const { parent_hash: parent, blocks } = data.stored;
      const buf = this.buffer(blocks.length * 4 + 2);
      for (let i = 0; i < blocks.length; i++) {
        splitU64Into(blocks[i]!.block_hash, buf, i * 4);
        splitU64Into(blocks[i]!.tokens_hash, buf, i * 4 + 2);
      }
      const p = blocks.length * 4;
      if (parent !== null) splitU64Into(parent, buf, p);
      status = this.tree.applyStored(slot, parent !== null, buf[p]!, buf[p + 1]!, buf, 0, blocks.length);
    } else {
      const hashes = data.removed.block_hashes;
      const buf = this.buffer(hashes.length * 2);
      for (let i = 0; i < hashes.length; i++) splitU64Into(hashes[i]!, buf, i * 2);
      status = this.tree.applyRemoved(slot, buf, 0, hashes.length);
    }
    if (status !== TreeStatus.Ok) {
      const name = TREE_STATUS_NAMES[status];
      this.errorCounts.set(name, (this.errorCounts.get(name) ?? 0) + 1);
    }
    return status;
  }

  /** Forgets a worker and every dp rank of it (discovery removed it). */
  removeWorker(workerId: bigint): void {
    for (const slot of this.slotsById.get(workerId) ?? []) if (slot !== undefined) this.tree.removeWorker(slot);
  }

  /** Overlap per worker rank for a request's local block hashes; workers without overlap are absent. */
  findMatches(localHashes: readonly bigint[], earlyExit = false): WorkerOverlap[] {
    const buf = this.buffer(localHashes.length * 2);
    for (let i = 0; i < localHashes.length; i++) splitU64Into(localHashes[i]!, buf, i * 2);
    const m = this.tree.findMatches(buf, 0, localHashes.length, earlyExit);
    const out: WorkerOverlap[] = [];
    for (let i = 0; i < m.count; i++) {
      const slot = m.slots[i]!;
      const w = this.workers[slot]!;
      out.push({ workerId: w.workerId, dpRank: w.dpRank, blocks: m.depths[i]!, treeSize: this.tree.blocksOf(slot) });
    }
    return out;
  }

  /**
   * The block hash ending the worker rank's cached prefix of a prompt (its deepest matched block, as
   * workers reported it); null when the rank holds none of the prompt.
   */
  deepestMatchedHash(localHashes: readonly bigint[], workerId: bigint, dpRank: number): bigint | null {
    const depth = this.findMatches(localHashes).find((m) => m.workerId === workerId && m.dpRank === dpRank)?.blocks ?? 0;
    if (depth === 0) return null;
    const buf = this.buffer(depth * 2);
    for (let i = 0; i < depth; i++) splitU64Into(localHashes[i]!, buf, i * 2);
    return this.tree.seqHashAt(buf.subarray(0, depth * 2));
  }

  /** Blocks held by a worker rank. */
  treeSize(workerId: bigint, dpRank = 0): number {
    const slot = this.slotsById.get(workerId)?.[dpRank];
    return slot === undefined ? 0 : this.tree.blocksOf(slot);
  }

  /** The tree as single-block store events, breadth first (upstream dump_tree_as_events). */
  dumpEvents(): RouterEvent[] {
    const out: RouterEvent[] = [];
    this.tree.forEachBlockBreadthFirst((slot, hasParent, pHi, pLo, sHi, sLo, lHi, lLo) => {
      const w = this.workers[slot]!;
      out.push({
        worker_id: w.workerId,
        event: {
          event_id: out.length,
          dp_rank: w.dpRank,
          data: {
            stored: {
              parent_hash: hasParent ? joinU64(pHi, pLo) : null,
              blocks: [{ block_hash: joinU64(sHi, sLo), tokens_hash: joinU64(lHi, lLo), mm_extra_info: null }],
            },
          },
        },
      });
    });
    return out;
  }

  private buffer(words: number): Uint32Array {
    if (this.scratch.length < words) this.scratch = new Uint32Array(Math.max(words, this.scratch.length * 2));
    return this.scratch;
  }
}
