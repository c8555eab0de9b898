// BPE on one piece's bytes: the lowest-ranked adjacent pair merges first, the leftmost of equal
// pairs first, until no pair merges (the native order). A heap of (rank, position) and linked
// symbols make it O(n log n), so a long piece costs no more than its length says.

import type { IdRun } from './id-run.js';
import type { MergeTable } from './merge-table.js';

/** Positions take the low bits of a heap key, ranks the rest: keys stay small integers. */
const POSITION_BITS = 10;
export const MAX_WORD_BYTES = 1 << POSITION_BITS;
/** Ranks that fit the heap key (2^21 merges; real tokenizers have a few hundred thousand). */
export const MAX_MERGES = 1 << (31 - POSITION_BITS);

export class WordMerger {
  private readonly ids = new Int32Array(MAX_WORD_BYTES);
  private readonly next = new Int32Array(MAX_WORD_BYTES);
  private readonly prev = new Int32Array(MAX_WORD_BYTES);
  private readonly gone = new Uint8Array(MAX_WORD_BYTES);
  /** Each merge pushes at most two pairs. */
  private readonly heap = new Int32Array(MAX_WORD_BYTES * 3);
  private heapSize = 0;

  constructor(
    private readonly merges: MergeTable,
    /** Token id of each byte's byte-level character. */
    private readonly byteIds: Int32Array,
  ) {}

  /** Appends the ids of the piece whose UTF-8 is `bytes[0..n)` (n ≤ MAX_WORD_BYTES) to `out`. */
  merge(bytes: Uint8Array, n: number, out: IdRun): void {
    const { ids, next, prev, gone, merges } = this;
    this.heapSize = 0;
    for (let i = 0; i < n; i++) {
      ids[i] = this.byteIds[bytes[i]!]!;
      next[i] = i + 1;
      prev[i] = i - 1;
      gone[i] = 0;
    }
    for (let i = 0; i + 1 < n; i++) {
      const slot = merges.find(ids[i]!, ids[i + 1]!);
      if (slot >= 0) this.push((merges.rankAt(slot) << POSITION_BITS) | i);
    }
    while (this.heapSize > 0) {
      const key = this.pop();
      const at = key & (MAX_WORD_BYTES - 1);
      if (gone[at] === 1) continue;
      const right = next[at]!;
      if (right >= n) continue;
      const slot = merges.find(ids[at]!, ids[right]!);
      // A stale entry: the pair at `at` changed since it was queued.
      if (slot < 0 || merges.rankAt(slot) !== key >>> POSITION_BITS) continue;
      ids[at] = merges.mergedAt(slot);
      gone[right] = 1;
      const after = next[right]!;
      next[at] = after;
      if (after < n) prev[after] = at;
      const before = prev[at]!;
      if (before >= 0) {
        const s = merges.find(ids[before]!, ids[at]!);
        if (s >= 0) this.push((merges.rankAt(s) << POSITION_BITS) | before);
      }
      if (after < n) {
        const s = merges.find(ids[at]!, ids[after]!);
        if (s >= 0) this.push((merges.rankAt(s) << POSITION_BITS) | at);
      }
    }
    for (let i = 0; i < n; i = next[i]!) out.push(ids[i]!);
  }

  private push(key: number): void {
    const heap = this.heap;
    let i = this.heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= key) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = key;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap[--this.heapSize]!;
    const size = this.heapSize;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
