// The KV indexer's radix tree (reference/router.md §3.1), laid out in typed arrays: nodes are
// indices of fixed-size records in one Int32Array (one cache line each for up to 64 workers), a
// node's workers are a bitset over worker slots, the per-worker seq-hash lookup is an
// open-addressing table keyed by hashes split into 32-bit halves.
//
// Every node in the tree has a cell in the position index (position-index.ts), keyed by its depth
// and a 64-bit fingerprint of its path (path-fingerprint.ts), holding its VISIBLE bitset V: the
// workers that hold every block from the root down to it, V(node) = B(node) ∧ V(parent) where B
// is the node's true holders (in its record). V never grows down a path, so a worker's
// contiguous-prefix overlap is the deepest level of the query whose V holds it, and find_matches
// can jump: it reads every JUMP_LEVELS-th level (each computable from the query alone) and reads
// the levels in between only where the set of workers changed. Keys are exact up to a 64-bit
// fingerprint collision (see path-fingerprint.ts). A worker leaving a node clears its bit below
// it, down the blocks it still holds there (and sets them again when it comes back): a chain of
// blocks left dangling is walked once when it becomes invisible, once when it becomes visible.
//
// Nodes that no query can reach (detached from their parent, or under such a node) keep their
// cells with V empty, so that stores parented on them still find their children; a query that
// meets one sees no worker there, as it would see no node. When a reachable node needs the key a
// stale node holds (its old path), the stale node's subtree moves to fresh keys first. Detached
// leaves have no cell (most are dropped soon after, and their removal then touches no cell).
import { CELL_BITS, CELL_DEPTH, CELL_FP_HI, CELL_FP_LO, CELL_NODE, PositionIndex } from './position-index.js';
import { childFingerprint, pathFingerprints, ROOT_FP_HI, ROOT_FP_LO } from './path-fingerprint.js';
import { TripleKeyTable } from './triple-key-table.js';
import { joinU64 } from './u64.js';

export const ROOT = 0;

/** Outcome of applying one event; upstream's KvCacheEventError kinds. */
export const enum TreeStatus {
  Ok = 0,
  ParentBlockNotFound = 1,
  BlockNotFound = 2,
  InvalidBlockSequence = 3,
}

const NONE = -1;
/** PARENT of a free record (a detached node's is NONE). */
const FREED = -2;
// Field offsets of a node's record in `nodes`.
const PARENT = 0;
/** The node's cell in the position index, NONE for the root, free nodes and detached leaves. */
const CELL = 1;
/**
 * Lookup entries pointing at the node. Usually equal to the worker count, but a worker can hold
 * one node under two block hashes; the node must outlive every entry that names it.
 */
const REFS = 2;
// Children form a doubly linked list: the first child, then siblings.
const FIRST = 3;
const NEXT = 4;
const PREV = 5;
// The node's hashes as u32 halves (stored as int32).
const LOCAL_HI = 6;
const LOCAL_LO = 7;
const SEQ_HI = 8;
const SEQ_LO = 9;
/**
 * Three bitsets of `words` words: B, the workers holding the node; at BITS + words, CO, a
 * superset of the workers holding any child (set when a worker is added to a child, made exact
 * whenever a walk visits all the children), so that a worker's arrival or departure walks the
 * children of a wide node only when one of them may need its visible bit changed; at
 * BITS + 2 * words, V, the visible set, a copy of the cell's. Events read V here and only write
 * the cell, so that a removal waits for no cell.
 */
const BITS = 10;

/** Record width for `words` bitset words (B, CO and V): a power of two, one cache line up to 64 workers. */
function recordStride(words: number): number {
  let stride = 16;
  while (stride < BITS + 3 * words) stride *= 2;
  return stride;
}

/**
 * find_matches reads every JUMP_LEVELS-th level of the query (and its last) first, then the levels
 * between two of those only where the set of matching workers shrank. Measured against 2, 4, 16
 * in bench/RESULTS.md.
 */
export const JUMP_LEVELS = 8;

/** The salt that moves a stale node's subtree off its old path (see moveAside). */
const STALE_SALT = 0x5bd1e995 | 0;

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
   * One record per node (the fields above, then B, CO and V), so that an event touches one cache
   * line per node.
   */
  private stride = recordStride(1);
  private slotCapacity = 32;
  private nodeCapacity = 0;
  private highWater = 1;
  private freeNodes: number[] = [];
  /** Work list of dropChildren and of the visible-bit walks, kept between calls. */
  private readonly stack: number[] = [];
  private emptyAttached = 0;

  private nodes = new Int32Array(0);

  private readonly positions: PositionIndex;
  private readonly lookup: TripleKeyTable;
  private blocksBySlot = new Int32Array(32);
  private knownSlot = new Uint8Array(32);

  /** A key being computed: fingerprint (hi, lo). */
  private readonly key = new Int32Array(2);
  /**
   * What the last childOf learnt about the child's key, for the attach that follows it when it
   * found no child: the depth (0 when it computed no key) and whether a stale node holds the key.
   */
  private keyDepth = 0;
  private keyTaken = false;
  /** Salted keys made so far: each salt is used once, so no two salted keys meet (see moveAside). */
  private salts = 0;
  /** A visible bitset being inserted with a cell. */
  private visible = new Int32Array(1);

  private active = new Int32Array(1);
  /** find_matches' per-level fingerprints (hi, lo pairs), checkpoint levels and their cells. */
  private fps = new Int32Array(0);
  private checkpoints = new Int32Array(0);
  private checkpointCells = new Int32Array(0);
  private readonly stretch = new Int32Array(JUMP_LEVELS);
  private readonly stretchCells = new Int32Array(JUMP_LEVELS);
  private readonly result: MatchResult = { count: 0, slots: new Int32Array(32), depths: new Int32Array(32) };

  constructor(expectedBlocks = 1024) {
    this.positions = new PositionIndex(expectedBlocks, this.words, (node, cell) => {
      this.nodes[node * this.stride + CELL] = cell;
    });
    this.lookup = new TripleKeyTable(expectedBlocks);
    this.growLevels(128);
    this.growNodes(Math.max(64, expectedBlocks));
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

  /** The sequence hash of the block reached by `path` (local hashes as hi, lo pairs) from the root; null if absent. */
  seqHashAt(path: Uint32Array): bigint | null {
    const node = path.length === 0 ? NONE : this.walk(path);
    if (node === NONE) return null;
    const at = node * this.stride;
    return joinU64(this.nodes[at + SEQ_HI]!, this.nodes[at + SEQ_LO]!);
  }

  /** Number of workers on the node reached by `path`; -1 if absent. */
  workersAt(path: Uint32Array): number {
    const node = this.walk(path);
    if (node === NONE) return -1;
    let n = 0;
    for (let w = 0; w < this.words; w++) n += popcount(this.nodes[node * this.stride + BITS + w]!);
    return n;
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
        if (previous !== NONE && this.nodes[previous * this.stride + PARENT] === NONE && this.nodes[previous * this.stride + FIRST] === NONE) {
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
      this.addWorker(child, cur, slot);
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
   *
   * Jump search: the first level, every JUMP_LEVELS-th level and the last are read in one batch.
   * Where a checkpoint's visible set equals the set still matching, every level in between has it
   * too (visible sets never grow down a path) and the stretch is skipped; where it shrank, or the
   * checkpoint is absent, the stretch is read in one batch and walked level by level, which gives
   * each dropped worker its exact depth.
   */
  findMatches(query: Uint32Array, offset: number, count: number, earlyExit = false): MatchResult {
    const out = this.result;
    out.count = 0;
    if (count <= 0) return out;
    if (count * 2 > this.fps.length) this.growLevels(count);
    const fps = this.fps;
    pathFingerprints(query, offset, count, fps);
    const marks = this.checkpoints;
    let n = 0;
    for (let l = 0; l < count - 1; l += JUMP_LEVELS) marks[n++] = l;
    marks[n++] = count - 1;
    const positions = this.positions;
    const found = this.checkpointCells;
    positions.lookupLevels(fps, marks, n, found);
    const cells = positions.cells;
    const words = this.words;
    const active = this.active;
    const first = found[0]!;
    if (first === NONE) return out;
    let remaining = 0;
    for (let w = 0; w < words; w++) remaining += popcount((active[w] = cells[first + CELL_BITS + w]!));
    if (remaining === 0) return out;
    let depth = 1;
    if (earlyExit && remaining === 1) return this.finish(depth);
    const stretch = this.stretch;
    const stretchCells = this.stretchCells;
    for (let k = 1; k < n; k++) {
      const level = marks[k]!;
      const c = found[k]!;
      if (c !== NONE && this.isActiveSet(cells, c)) {
        depth = level + 1;
        continue;
      }
      const len = level + 1 - depth;
      for (let i = 0; i < len; i++) stretch[i] = depth + i;
      positions.lookupLevels(fps, stretch, len, stretchCells);
      for (let i = 0; i < len; i++) {
        const base = stretchCells[i]!;
        if (base === NONE) return this.finish(depth);
        let changed = false;
        for (let w = 0; w < words; w++) {
          const was = active[w]!;
          const kept = was & cells[base + CELL_BITS + w]!;
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
        depth++;
        if (earlyExit && remaining === 1) return this.finish(depth);
      }
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

  /** Whether the cell's visible set is the set of workers still matching. */
  private isActiveSet(cells: Int32Array, cell: number): boolean {
    for (let w = 0; w < this.words; w++) if (cells[cell + CELL_BITS + w] !== this.active[w]) return false;
    return true;
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

  private growLevels(count: number): void {
    let levels = Math.max(64, this.fps.length / 2);
    while (levels < count) levels *= 2;
    this.fps = new Int32Array(levels * 2);
    const checkpoints = Math.ceil(levels / JUMP_LEVELS) + 1;
    this.checkpoints = new Int32Array(checkpoints);
    this.checkpointCells = new Int32Array(checkpoints);
  }

  private walk(path: Uint32Array): number {
    let node = ROOT;
    for (let i = 0; i < path.length && node !== NONE; i += 2) node = this.childOf(node, path[i]!, path[i + 1]!);
    return node;
  }

  /** Writes the key of the child with local hash (hi, lo) under `parent` (the root or a node with a cell) to `this.key`; returns its depth. */
  private childKey(parent: number, hi: number, lo: number): number {
    const cell = this.nodes[parent * this.stride + CELL]!;
    const cells = this.positions.cells;
    const pHi = parent === ROOT ? ROOT_FP_HI : cells[cell + CELL_FP_HI]!;
    const pLo = parent === ROOT ? ROOT_FP_LO : cells[cell + CELL_FP_LO]!;
    childFingerprint(pHi, pLo, hi | 0, lo | 0, this.key, 0);
    return parent === ROOT ? 1 : cells[cell + CELL_DEPTH]! + 1;
  }

  /** The child of `parent` with local hash (hi, lo), or NONE. A stale node on the same key is not a child. */
  private childOf(parent: number, hi: number, lo: number): number {
    this.keyDepth = 0;
    // A detached node without a cell has no children.
    if (parent !== ROOT && this.nodes[parent * this.stride + CELL] === NONE) return NONE;
    const p = this.positions;
    const depth = this.childKey(parent, hi, lo);
    const c = p.find(depth, this.key[0]!, this.key[1]!);
    this.keyDepth = depth;
    this.keyTaken = c !== NONE;
    if (c === NONE) return NONE;
    const node = p.cells[c + CELL_NODE]!;
    return this.nodes[node * this.stride + PARENT] === parent ? node : NONE;
  }

  private isSelfOrAncestor(candidate: number, node: number): boolean {
    for (let n = node; n !== NONE; n = this.nodes[n * this.stride + PARENT]!) if (n === candidate) return true;
    return false;
  }

  /** Whether the node's visible set holds the slot (the root's holds every slot). */
  private isVisible(node: number, word: number, bit: number): boolean {
    return node === ROOT || (this.nodes[node * this.stride + BITS + 2 * this.words + word]! & bit) !== 0;
  }

  private addWorker(node: number, parent: number, slot: number): void {
    const word = slot >>> 5;
    const bit = 1 << (slot & 31);
    const i = node * this.stride + BITS + word;
    if ((this.nodes[i]! & bit) !== 0) return;
    this.nodes[i] = this.nodes[i]! | bit;
    const co = parent * this.stride + BITS + this.words + word;
    this.nodes[co] = this.nodes[co]! | bit;
    if (this.isVisible(parent, word, bit)) this.setVisibleDown(node, word, bit, true);
  }

  /**
   * Sets (or clears) a worker's visible bit on the node and on every descendant that holds the
   * worker below it, so that every visible set stays B ∧ V(parent). Children are visited only
   * where CO says one may hold the worker. A child that holds it had the bit exactly as its parent
   * had (the invariant), so its new visible word is its holders word ∧ its parent's: written
   * without reading the cell.
   */
  private setVisibleDown(node: number, word: number, bit: number, show: boolean): void {
    const stride = this.stride;
    const coAt = BITS + this.words + word;
    const vAt = BITS + 2 * this.words + word;
    const nodes = this.nodes;
    const stack = this.stack;
    const v = nodes[node * stride + vAt]!;
    this.setVisibleWord(node, word, show ? v | bit : v & ~bit);
    // Most nodes have no child holding the worker (a block stored at the end of a chain, one evicted before its children).
    if ((nodes[node * stride + coAt]! & bit) === 0) return;
    stack.push(node);
    while (stack.length > 0) {
      const n = stack.pop()!;
      if ((nodes[n * stride + coAt]! & bit) === 0) continue;
      const parentVisible = nodes[n * stride + vAt]!;
      let holders = 0;
      for (let c = nodes[n * stride + FIRST]!; c !== NONE; c = nodes[c * stride + NEXT]!) {
        const held = nodes[c * stride + BITS + word]!;
        holders |= held;
        if ((held & bit) === 0) continue;
        this.setVisibleWord(c, word, held & parentVisible);
        stack.push(c);
      }
      nodes[n * stride + coAt] = holders;
    }
  }

  /** Writes a visible word to the node's record and its cell. */
  private setVisibleWord(node: number, word: number, value: number): void {
    this.nodes[node * this.stride + BITS + 2 * this.words + word] = value;
    this.positions.cells[this.nodes[node * this.stride + CELL]! + CELL_BITS + word] = value;
  }

  private isEmpty(node: number): boolean {
    for (let w = 0; w < this.words; w++) if (this.nodes[node * this.stride + BITS + w] !== 0) return false;
    return true;
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
    if (this.nodes[base + REFS] === 0 && this.isEmpty(node) && this.nodes[base + PARENT] === NONE && this.nodes[base + FIRST] === NONE) {
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
    if (this.isVisible(node, slot >>> 5, bit)) this.setVisibleDown(node, slot >>> 5, bit, false);
    if (!this.isEmpty(node)) return;
    this.dropChildren(node);
    if (this.nodes[base + PARENT] !== NONE) this.emptyAttached++;
    else if (this.nodes[base + REFS] === 0) this.freeNode(node);
  }

  /**
   * Detaches the children of an emptied node, and those of its emptied descendants. Their visible
   * sets are empty already (their ancestor's is). A detached leaf loses its cell; one with children
   * keeps it, key and all, so that its children are still found under it (a query that reaches it
   * sees no worker, as it would see no node).
   */
  private dropChildren(node: number): void {
    const stack = this.stack;
    stack.push(node);
    while (stack.length > 0) {
      const n = stack.pop()!;
      for (let c = this.nodes[n * this.stride + FIRST]!; c !== NONE; ) {
        const next = this.nodes[c * this.stride + NEXT]!;
        this.nodes[c * this.stride + PARENT] = NONE;
        if (this.nodes[c * this.stride + FIRST] === NONE) this.removePosition(c);
        // A child still held by a worker lives on, detached, until its last worker drops it.
        if (this.isEmpty(c)) {
          stack.push(c);
          if (this.nodes[c * this.stride + REFS] === 0) this.freeNode(c);
        }
        c = next;
      }
      if (this.nodes[n * this.stride + PARENT] !== FREED) {
        this.nodes[n * this.stride + FIRST] = NONE;
        this.nodes.fill(0, n * this.stride + BITS + this.words, n * this.stride + BITS + 2 * this.words);
      }
    }
  }

  /**
   * Hangs a new or detached childless node under `parent`, at the key of its path. Called right
   * after childOf(parent, lHi, lLo) found no child: its key is in `this.key` unless it had none to
   * compute.
   */
  private attach(node: number, parent: number, lHi: number, lLo: number): void {
    const base = node * this.stride;
    const words = this.words;
    let depth = this.keyDepth;
    let taken = this.keyTaken;
    if (depth === 0) {
      this.placeDetached(parent);
      depth = this.childKey(parent, lHi, lLo);
      taken = false;
    }
    const keyHi = this.key[0]!;
    const keyLo = this.key[1]!;
    this.nodes[base + PARENT] = parent;
    this.nodes[base + LOCAL_HI] = lHi;
    this.nodes[base + LOCAL_LO] = lLo;
    // The key may be held by a stale node on the same path: move it aside first.
    const held = taken ? this.positions.find(depth, keyHi, keyLo) : NONE;
    if (held !== NONE && this.positions.cells[held + CELL_NODE] !== node) this.moveAside(this.positions.cells[held + CELL_NODE]!);
    if (this.nodes[base + CELL] !== NONE) this.removePosition(node);
    for (let w = 0; w < words; w++) {
      const held = this.nodes[base + BITS + w]!;
      const co = parent * this.stride + BITS + words + w;
      this.nodes[co] = this.nodes[co]! | held;
      const v = parent === ROOT ? held : held & this.nodes[parent * this.stride + BITS + 2 * words + w]!;
      this.nodes[base + BITS + 2 * words + w] = v;
      this.visible[w] = v;
    }
    this.positions.insert(node, depth, keyHi, keyLo, this.visible, 0);
    const head = this.nodes[parent * this.stride + FIRST]!;
    this.nodes[base + PREV] = NONE;
    this.nodes[base + NEXT] = head;
    if (head !== NONE) this.nodes[head * this.stride + PREV] = node;
    this.nodes[parent * this.stride + FIRST] = node;
  }

  /**
   * Moves a stale node (no query can reach it: its visible sets are empty) and its subtree off the
   * key of its old path, which a reachable node needs: the node's fingerprint is salted with a
   * salt never used before (a later stale node of the same path gets another key), its
   * descendants' follow from it.
   */
  private moveAside(stale: number): void {
    const cells = this.positions.cells;
    const cell = this.nodes[stale * this.stride + CELL]!;
    childFingerprint(cells[cell + CELL_FP_HI]!, cells[cell + CELL_FP_LO]!, STALE_SALT, ++this.salts, this.key, 0);
    this.rekey(stale);
    const stack = this.stack;
    const base = stack.length;
    stack.push(stale);
    while (stack.length > base) {
      const n = stack.pop()!;
      for (let c = this.nodes[n * this.stride + FIRST]!; c !== NONE; c = this.nodes[c * this.stride + NEXT]!) {
        this.childKey(n, this.nodes[c * this.stride + LOCAL_HI]!, this.nodes[c * this.stride + LOCAL_LO]!);
        this.rekey(c);
        stack.push(c);
      }
    }
  }

  /** Gives a detached node without a cell (it gets its first child) a key of its own: no query path leads there. */
  private placeDetached(node: number): void {
    childFingerprint(STALE_SALT, STALE_SALT, STALE_SALT, ++this.salts, this.key, 0);
    this.visible.fill(0);
    this.positions.insert(node, 0, this.key[0]!, this.key[1]!, this.visible, 0);
  }

  /** Moves a stale node's cell to the key in `this.key` (same depth, parent and empty visible set). */
  private rekey(node: number): void {
    const cell = this.nodes[node * this.stride + CELL]!;
    const depth = this.positions.cells[cell + CELL_DEPTH]!;
    this.removePosition(node);
    this.visible.fill(0);
    this.positions.insert(node, depth, this.key[0]!, this.key[1]!, this.visible, 0);
  }

  private removePosition(node: number): void {
    this.positions.remove(this.nodes[node * this.stride + CELL]!);
    this.nodes[node * this.stride + CELL] = NONE;
  }

  private newNode(parent: number, lHi: number, lLo: number, sHi: number, sLo: number): number {
    const node = this.allocNode();
    this.nodes.fill(0, node * this.stride, (node + 1) * this.stride);
    this.nodes[node * this.stride + FIRST] = NONE;
    this.nodes[node * this.stride + CELL] = NONE;
    this.nodes[node * this.stride + SEQ_HI] = sHi;
    this.nodes[node * this.stride + SEQ_LO] = sLo;
    this.attach(node, parent, lHi, lLo);
    return node;
  }

  private freeNode(node: number): void {
    if (this.nodes[node * this.stride + CELL] !== NONE) this.removePosition(node);
    this.nodes[node * this.stride + PARENT] = FREED;
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
        this.nodes[cur * this.stride + PARENT]! >= 0 &&
        this.isEmpty(cur) &&
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
    const old = this.words;
    const stride = recordStride(words);
    const nodes = new Int32Array(this.nodeCapacity * stride);
    for (let n = 0; n < this.highWater; n++) {
      const from = n * this.stride;
      const to = n * stride;
      nodes.set(this.nodes.subarray(from, from + BITS + old), to);
      nodes.set(this.nodes.subarray(from + BITS + old, from + BITS + 2 * old), to + BITS + words);
      nodes.set(this.nodes.subarray(from + BITS + 2 * old, from + BITS + 3 * old), to + BITS + 2 * words);
    }
    this.nodes = nodes;
    this.words = words;
    this.stride = stride;
    this.positions.setWords(words);
    this.active = new Int32Array(words);
    this.visible = new Int32Array(words);
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
