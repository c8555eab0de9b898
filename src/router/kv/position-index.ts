// The radix tree's attached nodes indexed by (depth, local hash), one cell per node holding its
// parent and a copy of its worker bitset. find_matches can therefore compute every level's cell
// from the query alone, issue all those reads before using any of them (their cache misses
// overlap), and find in the cell everything a level needs: one cache line per level.
// Open addressing with linear probing; nodes sharing a (depth, local hash) under different
// parents occupy separate cells and are told apart by their parent.
import { fillsHole, slotHash } from './triple-key-table.js';

const EMPTY = -1;
const MIN_CAPACITY = 16;
// Field offsets within a cell.
export const CELL_NODE = 0;
const CELL_PARENT = 1;
const CELL_DEPTH = 2;
const CELL_HI = 3;
const CELL_LO = 4;
export const CELL_BITS = 5;

/** Cell width in words for `words` bitset words: a power of two, so that no cell straddles a cache line. */
function strideFor(words: number): number {
  let stride = 8;
  while (stride < CELL_BITS + words) stride *= 2;
  return stride;
}

export class PositionIndex {
  /** The cells; a cell handle is the offset of its first word. Read-only outside this class except the bitset words. */
  cells: Int32Array;
  stride: number;
  private mask: number;
  /**
   * Homes are the first cell of a cache line (two cells of 32 bytes share one): a probe that has
   * to pass a cell finds the next one in the line it has read already, not in a line nobody read
   * ahead.
   */
  private homeMask: number;
  private count = 0;
  /** Sink for the reads `follow` issues ahead, so they cannot be optimized away. */
  private touched = 0;

  /** `moved(node, cell)` is told every time a node's cell changes (insert, deletion shifts, growth). */
  constructor(
    initialCapacity: number,
    private words: number,
    private readonly moved: (node: number, cell: number) => void,
  ) {
    let capacity = MIN_CAPACITY;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.mask = capacity - 1;
    this.stride = strideFor(words);
    this.homeMask = homeMaskFor(this.mask, this.stride);
    this.cells = emptyCells(capacity, this.stride);
  }

  /** The slot where the probe for (depth, hi, lo) starts; `probe` takes it. */
  home(depth: number, hi: number, lo: number): number {
    return slotHash(depth, hi | 0, lo | 0) & this.homeMask;
  }

  /**
   * Follows a run of `count` query levels (hi, lo pairs at `query[offset..]`, level i at depth
   * first + i, level 0 under `parent`), writing the cell of level i to `path[i]`; returns the
   * number of levels found (the walk stops at the first absent one). Three passes: the home cell
   * of every level (pure arithmetic), a loop of nothing but independent loads of those cells (so
   * the CPU keeps many cache misses in flight; with hashing or probing interleaved it keeps few),
   * then the probes, which find the cells cached. A node is told apart by its parent and local
   * hash alone (its depth follows from its parent).
   */
  follow(query: Uint32Array, offset: number, first: number, count: number, parent: number, path: Int32Array): number {
    const cells = this.cells;
    const stride = this.stride;
    const homeMask = this.homeMask;
    const last = this.mask * stride;
    for (let i = 0, at = offset; i < count; i++, at += 2) path[i] = (slotHash(first + i, query[at]! | 0, query[at + 1]! | 0) & homeMask) * stride;
    let touched = 0;
    for (let i = 0; i < count; i++) touched ^= cells[path[i]!]!;
    this.touched = touched;
    for (let i = 0, at = offset; i < count; i++, at += 2) {
      const hi = query[at]! | 0;
      const lo = query[at + 1]! | 0;
      let c = path[i]!;
      for (;;) {
        if (cells[c + CELL_NODE] === EMPTY) return i;
        if (cells[c + CELL_LO] === lo && cells[c + CELL_PARENT] === parent && cells[c + CELL_HI] === hi) break;
        c = c === last ? 0 : c + stride;
      }
      path[i] = c;
      parent = cells[c + CELL_NODE]!;
    }
    return count;
  }

  /** The cell of the node at (depth, hi, lo) under `parent`, probing from `slot`; -1 if absent. */
  probe(slot: number, parent: number, depth: number, hi: number, lo: number): number {
    const cells = this.cells;
    const stride = this.stride;
    const mask = this.mask;
    hi |= 0;
    lo |= 0;
    for (let i = slot; ; i = (i + 1) & mask) {
      const c = i * stride;
      if (cells[c + CELL_NODE] === EMPTY) return EMPTY;
      if (cells[c + CELL_LO] === lo && cells[c + CELL_HI] === hi && cells[c + CELL_DEPTH] === depth && cells[c + CELL_PARENT] === parent) return c;
    }
  }

  /** Adds a node (not yet present) with its current bitset, `words` words at `bits[bitsAt..]`. */
  insert(node: number, parent: number, depth: number, hi: number, lo: number, bits: Int32Array, bitsAt: number): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.rebuild((this.mask + 1) * 2, this.words);
    const cells = this.cells;
    const stride = this.stride;
    let i = this.home(depth, hi, lo);
    while (cells[i * stride + CELL_NODE] !== EMPTY) i = (i + 1) & this.mask;
    const c = i * stride;
    cells[c + CELL_NODE] = node;
    cells[c + CELL_PARENT] = parent;
    cells[c + CELL_DEPTH] = depth;
    cells[c + CELL_HI] = hi | 0;
    cells[c + CELL_LO] = lo | 0;
    for (let w = 0; w < this.words; w++) cells[c + CELL_BITS + w] = bits[bitsAt + w]!;
    this.count++;
    this.moved(node, c);
  }

  /** Removes the cell at `cell` (a handle from insert or moved). */
  remove(cell: number): void {
    const cells = this.cells;
    const stride = this.stride;
    const mask = this.mask;
    this.count--;
    // Backward-shift deletion keeps probe chains intact without tombstones.
    let hole = cell / stride;
    for (let j = (hole + 1) & mask; cells[j * stride + CELL_NODE] !== EMPTY; j = (j + 1) & mask) {
      const c = j * stride;
      if (fillsHole(hole, j, this.home(cells[c + CELL_DEPTH]!, cells[c + CELL_HI]!, cells[c + CELL_LO]!))) {
        cells.copyWithin(hole * stride, c, c + stride);
        this.moved(cells[hole * stride + CELL_NODE]!, hole * stride);
        hole = j;
      }
    }
    cells[hole * stride + CELL_NODE] = EMPTY;
  }

  /** Widens every cell's bitset to `words` words (new words zero). */
  setWords(words: number): void {
    this.rebuild(this.mask + 1, words);
  }

  private rebuild(capacity: number, words: number): void {
    const old = this.cells;
    const oldStride = this.stride;
    const oldWords = this.words;
    this.mask = capacity - 1;
    this.words = words;
    this.stride = strideFor(words);
    this.homeMask = homeMaskFor(this.mask, this.stride);
    this.cells = emptyCells(capacity, this.stride);
    this.count = 0;
    const bits = new Int32Array(words);
    for (let c = 0; c < old.length; c += oldStride) {
      if (old[c + CELL_NODE] === EMPTY) continue;
      bits.set(old.subarray(c + CELL_BITS, c + CELL_BITS + oldWords));
      this.insert(old[c + CELL_NODE]!, old[c + CELL_PARENT]!, old[c + CELL_DEPTH]!, old[c + CELL_HI]!, old[c + CELL_LO]!, bits, 0);
    }
  }
}

/** Clears the low bits of a slot that index a cell within its 64-byte line. */
function homeMaskFor(mask: number, stride: number): number {
  const cellsPerLine = Math.max(1, 16 / stride);
  return mask & ~(cellsPerLine - 1);
}

function emptyCells(capacity: number, stride: number): Int32Array {
  const cells = new Int32Array(capacity * stride);
  for (let c = CELL_NODE; c < cells.length; c += stride) cells[c] = EMPTY;
  return cells;
}
