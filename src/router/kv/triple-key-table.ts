// Open-addressing hash table from (int, u32, u32) to a non-negative int: a u64 hash split in
// halves plus a small scope (a node index or a worker slot). One Int32Array holds each entry's
// four words side by side, so a probe touches one cache line; linear probing, no tombstones.

const EMPTY = -1;
const MIN_CAPACITY = 16;
const STRIDE = 4; // scope, hi, lo, value

/** Home-slot hash of a (small int, u64 as hi/lo halves) key; callers mask it to their capacity. */
export function slotHash(a: number, hi: number, lo: number): number {
  let h = lo ^ Math.imul(hi, 0x85ebca6b) ^ Math.imul(a, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h;
}

/**
 * Backward-shift deletion: whether the entry at slot `j`, whose home slot is `home`, may move back
 * into the hole at `hole` without falling before its home (linear probing, wrap-around aware).
 */
export function fillsHole(hole: number, j: number, home: number): boolean {
  return hole <= j ? home <= hole || home > j : home <= hole && home > j;
}

export class TripleKeyTable {
  private cells: Int32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = MIN_CAPACITY) {
    let cap = MIN_CAPACITY;
    while (cap < initialCapacity * 2) cap *= 2;
    this.mask = cap - 1;
    this.cells = this.emptyCells(cap);
  }

  get size(): number {
    return this.count;
  }

  /** The value stored for the key, or -1. */
  get(a: number, hi: number, lo: number): number {
    const mask = this.mask;
    const cells = this.cells;
    hi |= 0;
    lo |= 0;
    for (let i = slotHash(a, hi, lo) & mask; ; i = (i + 1) & mask) {
      const c = i * STRIDE;
      const v = cells[c + 3]!;
      if (v === EMPTY) return EMPTY;
      if (cells[c + 2] === lo && cells[c + 1] === hi && cells[c] === a) return v;
    }
  }

  /** Inserts or overwrites; value must be >= 0. */
  set(a: number, hi: number, lo: number, value: number): void {
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    hi |= 0;
    lo |= 0;
    const mask = this.mask;
    const cells = this.cells;
    for (let i = slotHash(a, hi, lo) & mask; ; i = (i + 1) & mask) {
      const c = i * STRIDE;
      if (cells[c + 3] === EMPTY) {
        cells[c] = a;
        cells[c + 1] = hi;
        cells[c + 2] = lo;
        cells[c + 3] = value;
        this.count++;
        return;
      }
      if (cells[c + 2] === lo && cells[c + 1] === hi && cells[c] === a) {
        cells[c + 3] = value;
        return;
      }
    }
  }

  /** Removes the key; returns its value, or -1 when absent. */
  delete(a: number, hi: number, lo: number): number {
    hi |= 0;
    lo |= 0;
    const mask = this.mask;
    const cells = this.cells;
    let i = slotHash(a, hi, lo) & mask;
    for (;;) {
      const c = i * STRIDE;
      if (cells[c + 3] === EMPTY) return EMPTY;
      if (cells[c + 2] === lo && cells[c + 1] === hi && cells[c] === a) break;
      i = (i + 1) & mask;
    }
    const removed = cells[i * STRIDE + 3]!;
    this.count--;
    // Backward-shift deletion keeps probe chains intact without tombstones.
    let hole = i;
    for (let j = (i + 1) & mask; cells[j * STRIDE + 3] !== EMPTY; j = (j + 1) & mask) {
      const c = j * STRIDE;
      if (fillsHole(hole, j, slotHash(cells[c]!, cells[c + 1]!, cells[c + 2]!) & mask)) {
        cells.copyWithin(hole * STRIDE, c, c + STRIDE);
        hole = j;
      }
    }
    cells[hole * STRIDE + 3] = EMPTY;
    return removed;
  }

  /** Removes every entry whose scope is `a`, calling `visit(value)` for each. O(capacity): for rare bulk operations. */
  deleteScope(a: number, visit: (value: number) => void): void {
    const doomed: number[] = [];
    const cells = this.cells;
    for (let c = 0; c < cells.length; c += STRIDE) {
      if (cells[c + 3] !== EMPTY && cells[c] === a) doomed.push(cells[c + 1]!, cells[c + 2]!, cells[c + 3]!);
    }
    for (let k = 0; k < doomed.length; k += 3) {
      this.delete(a, doomed[k]!, doomed[k + 1]!);
      visit(doomed[k + 2]!);
    }
  }

  private emptyCells(capacity: number): Int32Array {
    const cells = new Int32Array(capacity * STRIDE);
    for (let c = 3; c < cells.length; c += STRIDE) cells[c] = EMPTY;
    return cells;
  }

  private grow(): void {
    const old = this.cells;
    const cap = (this.mask + 1) * 2;
    this.mask = cap - 1;
    this.cells = this.emptyCells(cap);
    this.count = 0;
    for (let c = 0; c < old.length; c += STRIDE) {
      if (old[c + 3] !== EMPTY) this.set(old[c]!, old[c + 1]!, old[c + 2]!, old[c + 3]!);
    }
  }
}
