// The radix tree's nodes indexed by (depth, path fingerprint), one cell per node holding its
// visible worker bitset (the workers that hold every block from the root down to it).
// find_matches computes the fingerprint of every query level from the query alone
// (path-fingerprint.ts), so it can read any level without the levels above it: it issues all the
// reads of a batch of levels before using any (their cache misses overlap) and finds in the cell
// everything a level needs, one cache line per level. Open addressing with linear probing; keys
// are unique (the tree moves a stale node out of the way before another takes its key).
import { fillsHole, slotHash } from './triple-key-table.js';

const EMPTY = -1;
const MIN_CAPACITY = 16;
// Field offsets within a cell.
export const CELL_NODE = 0;
export const CELL_DEPTH = 1;
export const CELL_FP_HI = 2;
export const CELL_FP_LO = 3;
export const CELL_BITS = 4;

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
  /** Sink for the reads `lookupLevels` issues ahead, so they cannot be optimized away. */
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

  /** The slot where the probe for (depth, fingerprint) starts. */
  home(depth: number, fpHi: number, fpLo: number): number {
    return slotHash(depth, fpHi | 0, fpLo | 0) & this.homeMask;
  }

  /**
   * Looks up `n` query levels: levels[i] is a 0-based level (depth levels[i] + 1) whose fingerprint
   * is at fps[2 * level], fps[2 * level + 1]; writes its cell to out[i], or -1 when absent. Three
   * passes: every home cell (pure arithmetic), a loop of nothing but independent loads of those
   * cells (so the CPU keeps many cache misses in flight; with hashing or probing interleaved it
   * keeps few), then the probes, which find the cells cached.
   */
  lookupLevels(fps: Int32Array, levels: Int32Array, n: number, out: Int32Array): void {
    const cells = this.cells;
    const stride = this.stride;
    const homeMask = this.homeMask;
    const last = this.mask * stride;
    for (let i = 0; i < n; i++) {
      const l = levels[i]!;
      out[i] = (slotHash(l + 1, fps[l * 2]!, fps[l * 2 + 1]!) & homeMask) * stride;
    }
    let touched = 0;
    for (let i = 0; i < n; i++) touched ^= cells[out[i]!]!;
    this.touched = touched;
    for (let i = 0; i < n; i++) {
      const l = levels[i]!;
      const hi = fps[l * 2]!;
      const lo = fps[l * 2 + 1]!;
      let c = out[i]!;
      for (;;) {
        if (cells[c + CELL_NODE] === EMPTY) {
          c = EMPTY;
          break;
        }
        if (cells[c + CELL_FP_LO] === lo && cells[c + CELL_FP_HI] === hi && cells[c + CELL_DEPTH] === l + 1) break;
        c = c === last ? 0 : c + stride;
      }
      out[i] = c;
    }
  }

  /** The cell of (depth, fingerprint), or -1 if absent. */
  find(depth: number, fpHi: number, fpLo: number): number {
    const cells = this.cells;
    const stride = this.stride;
    const mask = this.mask;
    fpHi |= 0;
    fpLo |= 0;
    for (let i = this.home(depth, fpHi, fpLo); ; i = (i + 1) & mask) {
      const c = i * stride;
      if (cells[c + CELL_NODE] === EMPTY) return EMPTY;
      if (cells[c + CELL_FP_LO] === fpLo && cells[c + CELL_FP_HI] === fpHi && cells[c + CELL_DEPTH] === depth) return c;
    }
  }

  /** Adds a node under a key not yet present, with its visible bitset (`words` words at `bits[bitsAt..]`). */
  insert(node: number, depth: number, fpHi: number, fpLo: number, bits: Int32Array, bitsAt: number): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.rebuild((this.mask + 1) * 2, this.words);
    const cells = this.cells;
    const stride = this.stride;
    let i = this.home(depth, fpHi, fpLo);
    while (cells[i * stride + CELL_NODE] !== EMPTY) i = (i + 1) & this.mask;
    const c = i * stride;
    cells[c + CELL_NODE] = node;
    cells[c + CELL_DEPTH] = depth;
    cells[c + CELL_FP_HI] = fpHi | 0;
    cells[c + CELL_FP_LO] = fpLo | 0;
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
      if (fillsHole(hole, j, this.home(cells[c + CELL_DEPTH]!, cells[c + CELL_FP_HI]!, cells[c + CELL_FP_LO]!))) {
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
      this.insert(old[c + CELL_NODE]!, old[c + CELL_DEPTH]!, old[c + CELL_FP_HI]!, old[c + CELL_FP_LO]!, bits, 0);
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
