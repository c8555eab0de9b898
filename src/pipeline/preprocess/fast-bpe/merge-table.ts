// The BPE merges as an open-addressing hash table keyed by the two token ids of a pair: typed
// arrays, no string keys, so a merge lookup on the cold path costs a few integer operations.

const EMPTY = -1;

export interface MergeTableParts {
  left: Int32Array;
  right: Int32Array;
  ranks: Int32Array;
  merged: Int32Array;
}

export class MergeTable {
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly ranks: Int32Array;
  private readonly merged: Int32Array;
  private readonly mask: number;

  /** An empty table for `pairs` merges, or the table of `parts` (another table's arrays). */
  constructor(pairs: number, parts?: MergeTableParts) {
    let size = 1024;
    while (!parts && size < pairs * 2) size *= 2;
    this.left = parts?.left ?? new Int32Array(size).fill(EMPTY);
    this.right = parts?.right ?? new Int32Array(size);
    this.ranks = parts?.ranks ?? new Int32Array(size);
    this.merged = parts?.merged ?? new Int32Array(size);
    this.mask = this.left.length - 1;
  }

  /** The table's arrays, to hand to another thread; `MergeTable.fromParts` rebuilds it there. */
  toParts(): MergeTableParts {
    return { left: this.left, right: this.right, ranks: this.ranks, merged: this.merged };
  }

  static fromParts(parts: MergeTableParts): MergeTable {
    return new MergeTable(0, parts);
  }

  /** Later merges of the same pair win, as in the native loader. */
  set(a: number, b: number, rank: number, merged: number): void {
    let slot = this.home(a, b);
    while (this.left[slot] !== EMPTY && (this.left[slot] !== a || this.right[slot] !== b)) slot = (slot + 1) & this.mask;
    this.left[slot] = a;
    this.right[slot] = b;
    this.ranks[slot] = rank;
    this.merged[slot] = merged;
  }

  /** The slot of pair (a, b), or -1 when the pair never merges. */
  find(a: number, b: number): number {
    let slot = this.home(a, b);
    for (;;) {
      const l = this.left[slot]!;
      if (l === EMPTY) return -1;
      if (l === a && this.right[slot] === b) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  rankAt(slot: number): number {
    return this.ranks[slot]!;
  }

  mergedAt(slot: number): number {
    return this.merged[slot]!;
  }

  private home(a: number, b: number): number {
    return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> 7 & this.mask;
  }
}
