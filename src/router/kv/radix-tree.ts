// The KV indexer's radix tree (reference/router.md §3.1), laid out in typed arrays: nodes are
// indices of fixed-size records in one Int32Array (one cache line each), a node's workers are a
// bitset over worker slots, the per-worker seq-hash lookup is an open-addressing table keyed by
// hashes split into 32-bit halves. Attached nodes are indexed by (depth, local hash) with their
// parent and a copy of their bitset (position-index.ts): a child is found as (depth + 1, local
// hash, parent), and find_matches issues the reads of a run of levels before following the parent
// links (the tree is far larger than the CPU caches, and level-by-level descent would pay one
// dependent cache miss per block).
import { CELL_BITS, CELL_NODE, PositionIndex } from './position-index.js';
import { TripleKeyTable } from './triple-key-table.js';

export const ROOT = 0;

/** Outcome of applying one event; upstream's KvCacheEventError kinds. */
export const enum TreeStatus {
  Ok = 0,
  ParentBlockNotFound = 1,
  BlockNotFound = 2,
  InvalidBlockSequence = 3,
}

const FREE = 0;
const ATTACHED = 1;
const DETACHED = 2;
const NONE = -1;
// Field offsets of a node's record in `nodes`.
const COUNT = 0;
const PARENT = 1;
/** The node's cell in the position index, NONE while detached (and for the root). */
const CELL = 2;
/**
 * Lookup entries pointing at the node. Usually equal to the worker count, but a worker can hold
 * one node under two block hashes; the node must outlive every entry that names it.
 */
const REFS = 3;
const STATE = 4;
const DEPTH = 5;
// Children form a doubly linked list: the first child, then siblings.
const FIRST = 6;
const NEXT = 7;
const PREV = 8;
// The node's hashes as u32 halves (stored as int32).
const LOCAL_HI = 9;
const LOCAL_LO = 10;
const SEQ_HI = 11;
const SEQ_LO = 12;
const BITS = 13;

/** Record width for `words` bitset words: a power of two, so that a record is one cache line (up to 96 workers). */
function recordStride(words: number): number {
  let stride = 16;
  while (stride < BITS + words) stride *= 2;
  return stride;
}
/**
 * find_matches reads the cells of this many levels before walking them: enough for the reads to
 * overlap, few enough that a query much longer than its match wastes little.
 */
const PREFETCH_LEVELS = 32;

/**
 * The per-worker overlap of one find_matches call: `slots[i]` matched `depths[i]` leading blocks.
 * Workers with no overlap are absent. The tree reuses this object: read it before the next call.
 */
export interface MatchResult {
  count: number;
  slots: Int32Array;
  depths: Int32Array;
}

export class RadixTree {
  private words = 1;
  /**
   * One record per node (the fields above, then `words` bitset words), so that an event touches
   * one cache line per node.
   */
  private stride = recordStride(1);
  private slotCapacity = 32;
  private nodeCapacity = 0;
  private highWater = 1;
  private freeNodes: number[] = [];
  /** dropChildren's work list, kept between calls (most evictions empty a node). */
  private readonly dropStack: number[] = [];
  private emptyAttached = 0;

  private nodes = new Int32Array(0);

  private readonly positions: PositionIndex;
  private readonly lookup: TripleKeyTable;
  private blocksBySlot = new Int32Array(32);
  private knownSlot = new Uint8Array(32);

  private active = new Int32Array(1);
  /** find_matches' cells of a run of levels (PositionIndex.follow writes them). */
  private readonly path = new Int32Array(PREFETCH_LEVELS);
  private readonly result: MatchResult = { count: 0, slots: new Int32Array(32), depths: new Int32Array(32) };

  constructor(expectedBlocks = 1024) {
    this.positions = new PositionIndex(expectedBlocks, this.words, (node, cell) => {
      this.nodes[node * this.stride + CELL] = cell;
    });
    this.lookup = new TripleKeyTable(expectedBlocks);
    this.growNodes(Math.max(64, expectedBlocks));
    this.nodes[ROOT * this.stride + STATE] = ATTACHED;
    this.nodes[ROOT * this.stride + PARENT] = NONE;
    this.nodes[ROOT * this.stride + CELL] = NONE;
    this.nodes[ROOT * this.stride + FIRST] = NONE;
  }

  /** Blocks held by a worker slot (upstream tree_sizes). */
  blocksOf(slot: number): number {
    return slot < this.slotCapacity ? this.blocksBySlot[slot]! : 0;
  }

  /** Σ over workers of their blocks (upstream current_size). */
  get currentSize(): number {
    return this.lookup.size;
  }

  /** Whether the slot has a lookup entry (it stays after a clear, goes after removeWorker). */
  hasWorker(slot: number): boolean {
    return slot < this.slotCapacity && this.knownSlot[slot] === 1;
  }

  /** Number of children of the node reached by following `path` (local hashes as hi, lo pairs) from the root; -1 if absent. */
  childCountAt(path: Uint32Array): number {
    const node = this.walk(path);
    if (node === NONE) return -1;
    let n = 0;
    for (let c = this.nodes[node * this.stride + FIRST]!; c !== NONE; c = this.nodes[c * this.stride + NEXT]!) n++;
    return n;
  }

  /** Number of workers on the node reached by `path`; -1 if absent. */
  workersAt(path: Uint32Array): number {
    const node = this.walk(path);
    return node === NONE ? -1 : this.nodes[node * this.stride + COUNT]!;
  }

  /**
   * Stores `count` blocks (4 u32 each at `blocks[offset..]`: seqHi, seqLo, localHi, localLo) for a
   * worker slot, chained under its block `parent` (hi, lo) or under the root.
   */
  applyStored(
    slot: number,
    hasParent: boolean,
    parentHi: number,
    parentLo: number,
    blocks: Uint32Array,
    offset: number,
    count: number,
  ): TreeStatus {
    this.ensureSlot(slot);
    this.knownSlot[slot] = 1;
    let cur = ROOT;
    if (hasParent) {
      cur = this.lookup.get(slot, parentHi, parentLo);
      if (cur === NONE) return TreeStatus.ParentBlockNotFound;
    }
    for (let b = 0, at = offset; b < count; b++, at += 4) {
      const sHi = blocks[at]!;
      const sLo = blocks[at + 1]!;
      const lHi = blocks[at + 2]!;
      const lLo = blocks[at + 3]!;
      let child = this.childOf(cur, lHi, lLo);
      const previous = this.lookup.get(slot, sHi, sLo);
      if (previous !== NONE && previous !== child && this.isSelfOrAncestor(previous, cur)) {
        return TreeStatus.InvalidBlockSequence;
      }
      if (child === NONE) {
        if (previous !== NONE && this.nodes[previous * this.stride + STATE] === DETACHED && this.nodes[previous * this.stride + FIRST] === NONE) {
          child = previous;
          this.attach(child, cur, lHi, lLo);
        } else {
          child = this.newNode(cur, lHi, lLo, sHi, sLo);
        }
      }
      if (previous !== child) {
        if (previous !== NONE) this.release(previous, slot);
        else this.blocksBySlot[slot]!++;
        this.lookup.set(slot, sHi, sLo, child);
        this.nodes[child * this.stride + REFS]!++;
      }
      this.addWorker(child, slot);
      cur = child;
    }
    return TreeStatus.Ok;
  }

  /** Removes `count` blocks (hi, lo pairs at `hashes[offset..]`) from a worker slot; continues past missing ones. */
  applyRemoved(slot: number, hashes: Uint32Array, offset: number, count: number): TreeStatus {
    let status = TreeStatus.Ok;
    for (let b = 0, at = offset; b < count; b++, at += 2) {
      const node = slot < this.slotCapacity ? this.lookup.delete(slot, hashes[at]!, hashes[at + 1]!) : NONE;
      if (node === NONE) {
        if (status === TreeStatus.Ok) status = TreeStatus.BlockNotFound;
        continue;
      }
      this.blocksBySlot[slot]!--;
      this.release(node, slot);
    }
    return status;
  }

  /** Drops every block of the slot; it stays known with 0 blocks. */
  clearWorker(slot: number): void {
    if (slot >= this.slotCapacity) return;
    this.lookup.deleteScope(slot, (node) => this.release(node, slot));
    this.blocksBySlot[slot] = 0;
  }

  /** Drops every block of the slot and forgets it. */
  removeWorker(slot: number): void {
    this.clearWorker(slot);
    if (slot < this.slotCapacity) this.knownSlot[slot] = 0;
  }

  /**
   * Contiguous prefix overlap per worker for the query's local hashes (`count` hi, lo pairs at
   * `query[offset..]`). With earlyExit the walk stops once a single worker is left.
   */
  findMatches(query: Uint32Array, offset: number, count: number, earlyExit = false): MatchResult {
    const out = this.result;
    out.count = 0;
    const positions = this.positions;
    const words = this.words;
    const active = this.active;
    const path = this.path;
    let prev = ROOT;
    let remaining = 0;
    let depth = 0;
    for (let from = 0; from < count; from += PREFETCH_LEVELS) {
      const n = Math.min(PREFETCH_LEVELS, count - from);
      const found = positions.follow(query, offset + from * 2, from + 1, n, prev, path);
      // Narrow the worker set level by level; the cells are cached now.
      const cells = positions.cells;
      for (let i = 0; i < found; i++) {
        const base = path[i]! + CELL_BITS;
        if (depth === 0) {
          remaining = 0;
          for (let w = 0; w < words; w++) remaining += popcount((active[w] = cells[base + w]!));
          if (remaining === 0) return out;
        } else {
          let changed = false;
          for (let w = 0; w < words; w++) {
            const was = active[w]!;
            const kept = was & cells[base + w]!;
            if (kept !== was) {
              changed = true;
              this.emitBits(was ^ kept, w, depth);
              active[w] = kept;
            }
          }
          if (changed) {
            remaining = 0;
            for (let w = 0; w < words; w++) remaining += popcount(active[w]!);
            if (remaining === 0) return out;
          }
        }
        depth++;
        if (earlyExit && remaining === 1) return this.finish(depth);
      }
      if (found < n) break;
      prev = cells[path[n - 1]! + CELL_NODE]!;
    }
    return this.finish(depth);
  }

  /**
   * Visits every (node, worker) pair breadth-first from the root: the worker's block with its
   * parent block (hasParent false at depth 1). Replaying the visits as stores rebuilds the tree.
   */
  forEachBlockBreadthFirst(
    visit: (slot: number, hasParent: boolean, parentHi: number, parentLo: number, seqHi: number, seqLo: number, localHi: number, localLo: number) => void,
  ): void {
    const queue: number[] = [];
    for (let c = this.nodes[ROOT * this.stride + FIRST]!; c !== NONE; c = this.nodes[c * this.stride + NEXT]!) queue.push(c);
    // Hashes are stored as int32; the visitor gets them unsigned.
    const field = (n: number, f: number) => this.nodes[n * this.stride + f]! >>> 0;
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q]!;
      const p = this.nodes[node * this.stride + PARENT]!;
      for (let w = 0; w < this.words; w++) {
        let word = this.nodes[node * this.stride + BITS + w]!;
        while (word !== 0) {
          const low = word & -word;
          const slot = w * 32 + (31 - Math.clz32(low));
          word ^= low;
          const hasParent = p !== ROOT;
          visit(slot, hasParent, field(p, SEQ_HI), field(p, SEQ_LO), field(node, SEQ_HI), field(node, SEQ_LO), field(node, LOCAL_HI), field(node, LOCAL_LO));
        }
      }
      for (let c = this.nodes[node * this.stride + FIRST]!; c !== NONE; c = this.nodes[c * this.stride + NEXT]!) queue.push(c);
    }
  }

  /** Emits the workers still active at the end of a walk with the depth reached. */
  private finish(depth: number): MatchResult {
    if (depth > 0) for (let w = 0; w < this.words; w++) if (this.active[w] !== 0) this.emitBits(this.active[w]!, w, depth);
    return this.result;
  }

  private emitBits(word: number, wordIndex: number, depth: number): void {
    const out = this.result;
    while (word !== 0) {
      const low = word & -word;
      out.slots[out.count] = wordIndex * 32 + (31 - Math.clz32(low));
      out.depths[out.count] = depth;
      out.count++;
      word ^= low;
    }
  }

  private walk(path: Uint32Array): number {
    let node = ROOT;
    for (let i = 0; i < path.length && node !== NONE; i += 2) node = this.childOf(node, path[i]!, path[i + 1]!);
    return node;
  }

  /** The attached child of `parent` with local hash (hi, lo), or NONE. */
  private childOf(parent: number, hi: number, lo: number): number {
    const p = this.positions;
    const d = this.nodes[parent * this.stride + DEPTH]! + 1;
    const c = p.probe(p.home(d, hi, lo), parent, d, hi, lo);
    return c === NONE ? NONE : p.cells[c + CELL_NODE]!;
  }

  private isSelfOrAncestor(candidate: number, node: number): boolean {
    for (let n = node; n !== NONE; n = this.nodes[n * this.stride + PARENT]!) if (n === candidate) return true;
    return false;
  }

  private addWorker(node: number, slot: number): void {
    const base = node * this.stride;
    const i = base + BITS + (slot >>> 5);
    const bit = 1 << (slot & 31);
    if ((this.nodes[i]! & bit) !== 0) return;
    this.nodes[i] = this.nodes[i]! | bit;
    this.nodes[base + COUNT]!++;
    this.mirrorBits(node, slot >>> 5);
  }

  /** Copies a bitset word of an attached node to its position cell, which queries read. */
  private mirrorBits(node: number, word: number): void {
    const base = node * this.stride;
    const cell = this.nodes[base + CELL]!;
    if (cell !== NONE) this.positions.cells[cell + CELL_BITS + word] = this.nodes[base + BITS + word]!;
  }

  /** A lookup entry of the slot no longer names the node. */
  private release(node: number, slot: number): void {
    const base = node * this.stride;
    this.nodes[base + REFS]!--;
    if ((this.nodes[base + BITS + (slot >>> 5)]! & (1 << (slot & 31))) !== 0) {
      this.dropWorker(node, slot);
      return;
    }
    // The slot held the node under another hash too and has dropped it already. A node that got
    // children while empty stays until they go (no query can reach it).
    if (this.nodes[base + REFS] === 0 && this.nodes[base + COUNT] === 0 && this.nodes[node * this.stride + STATE] === DETACHED && this.nodes[node * this.stride + FIRST] === NONE) {
      this.freeNode(node);
    }
  }

  /** Removes the slot from a node; an emptied node loses its children (cascading drop). */
  private dropWorker(node: number, slot: number): void {
    const base = node * this.stride;
    const i = base + BITS + (slot >>> 5);
    const bit = 1 << (slot & 31);
    if ((this.nodes[i]! & bit) === 0) return;
    this.nodes[i] = this.nodes[i]! & ~bit;
    this.mirrorBits(node, slot >>> 5);
    if (--this.nodes[base + COUNT]! > 0) return;
    this.dropChildren(node);
    if (this.nodes[node * this.stride + STATE] === ATTACHED) this.emptyAttached++;
    else if (this.nodes[base + REFS] === 0) this.freeNode(node);
  }

  private dropChildren(node: number): void {
    const stack = this.dropStack;
    stack.push(node);
    while (stack.length > 0) {
      const n = stack.pop()!;
      for (let c = this.nodes[n * this.stride + FIRST]!; c !== NONE; ) {
        const next = this.nodes[c * this.stride + NEXT]!;
        this.removePosition(c);
        this.nodes[c * this.stride + STATE] = DETACHED;
        this.nodes[c * this.stride + PARENT] = NONE;
        // A child still held by a worker lives on, detached, until its last worker drops it.
        if (this.nodes[c * this.stride + COUNT] === 0) {
          stack.push(c);
          if (this.nodes[c * this.stride + REFS] === 0) this.freeNode(c);
        }
        c = next;
      }
      if (this.nodes[n * this.stride + STATE] !== FREE) this.nodes[n * this.stride + FIRST] = NONE;
    }
  }

  private attach(node: number, parent: number, lHi: number, lLo: number): void {
    this.nodes[node * this.stride + STATE] = ATTACHED;
    this.nodes[node * this.stride + PARENT] = parent;
    this.nodes[node * this.stride + LOCAL_HI] = lHi;
    this.nodes[node * this.stride + LOCAL_LO] = lLo;
    this.nodes[node * this.stride + DEPTH] = this.nodes[parent * this.stride + DEPTH]! + 1;
    this.positions.insert(node, parent, this.nodes[node * this.stride + DEPTH]!, lHi, lLo, this.nodes, node * this.stride + BITS);
    const head = this.nodes[parent * this.stride + FIRST]!;
    this.nodes[node * this.stride + PREV] = NONE;
    this.nodes[node * this.stride + NEXT] = head;
    if (head !== NONE) this.nodes[head * this.stride + PREV] = node;
    this.nodes[parent * this.stride + FIRST] = node;
  }

  private removePosition(node: number): void {
    this.positions.remove(this.nodes[node * this.stride + CELL]!);
    this.nodes[node * this.stride + CELL] = NONE;
  }

  private newNode(parent: number, lHi: number, lLo: number, sHi: number, sLo: number): number {
    const node = this.allocNode();
    this.nodes.fill(0, node * this.stride, (node + 1) * this.stride);
    this.nodes[node * this.stride + FIRST] = NONE;
    this.nodes[node * this.stride + SEQ_HI] = sHi;
    this.nodes[node * this.stride + SEQ_LO] = sLo;
    this.attach(node, parent, lHi, lLo);
    return node;
  }

  private freeNode(node: number): void {
    this.nodes[node * this.stride + STATE] = FREE;
    this.freeNodes.push(node);
  }

  private allocNode(): number {
    if (this.freeNodes.length === 0 && this.highWater === this.nodeCapacity) {
      if (this.emptyAttached * 4 > this.nodeCapacity) this.sweepEmptyLeaves();
      if (this.freeNodes.length === 0) this.growNodes(this.nodeCapacity * 2);
    }
    return this.freeNodes.length > 0 ? this.freeNodes.pop()! : this.highWater++;
  }

  /**
   * Empty nodes stay under their parent (upstream keeps them until the parent empties); they hold
   * no workers, so no query can match them. Reclaim empty leaves when they crowd the node arrays.
   */
  private sweepEmptyLeaves(): void {
    for (let n = 1; n < this.highWater; n++) {
      let cur = n;
      while (
        cur !== ROOT &&
        this.nodes[cur * this.stride + STATE] === ATTACHED &&
        this.nodes[cur * this.stride + COUNT] === 0 &&
        this.nodes[cur * this.stride + REFS] === 0 &&
        this.nodes[cur * this.stride + FIRST] === NONE
      ) {
        const p = this.nodes[cur * this.stride + PARENT]!;
        this.unlink(cur, p);
        this.freeNode(cur);
        cur = p;
      }
    }
    this.emptyAttached = 0;
  }

  private unlink(node: number, parent: number): void {
    this.removePosition(node);
    const prev = this.nodes[node * this.stride + PREV]!;
    const next = this.nodes[node * this.stride + NEXT]!;
    if (prev !== NONE) this.nodes[prev * this.stride + NEXT] = next;
    else this.nodes[parent * this.stride + FIRST] = next;
    if (next !== NONE) this.nodes[next * this.stride + PREV] = prev;
  }

  private growNodes(capacity: number): void {
    const nodes = new Int32Array(capacity * this.stride);
    nodes.set(this.nodes);
    this.nodes = nodes;
    this.nodeCapacity = capacity;
  }

  private ensureSlot(slot: number): void {
    if (slot < this.slotCapacity) return;
    let capacity = this.slotCapacity;
    while (capacity <= slot) capacity *= 2;
    const words = capacity / 32;
    const stride = recordStride(words);
    const nodes = new Int32Array(this.nodeCapacity * stride);
    for (let n = 0; n < this.highWater; n++) nodes.set(this.nodes.subarray(n * this.stride, (n + 1) * this.stride), n * stride);
    this.nodes = nodes;
    this.words = words;
    this.stride = stride;
    this.positions.setWords(words);
    this.active = new Int32Array(words);
    const blocks = new Int32Array(capacity);
    blocks.set(this.blocksBySlot);
    this.blocksBySlot = blocks;
    const known = new Uint8Array(capacity);
    known.set(this.knownSlot);
    this.knownSlot = known;
    this.result.slots = new Int32Array(capacity);
    this.result.depths = new Int32Array(capacity);
    this.slotCapacity = capacity;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
