// Piece → its ids, looked up by where the piece stands in the text being encoded: a cached piece
// costs no string of its own. A Map keyed by the piece made one string per piece, ~35 KB of garbage
// for a new 1k-token prompt whose pieces were all known, each young-generation collection brought
// that much nearer (a pause in some request's time to first token).
//
// Two generations: new pieces go to `young`; when it is full it becomes `old` and the
// previous old one is emptied for reuse, and a piece found in `old` moves back to `young`. Pieces in
// use stay, and eviction costs nothing per piece.

/** A piece's ids: a lone id as a number. */
export type PieceIds = number | number[];

/** FNV-1a over the UTF-16 units of text[start, end). */
function hashOf(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Slots a table starts with; it doubles as it fills, up to twice its limit. */
const FIRST_SLOTS = 1024;

/** An open-addressing table (linear probing) of at most `limit` pieces, half its slots at most. */
class PieceTable {
  size = 0;
  private mask = FIRST_SLOTS - 1;
  private hashes = new Int32Array(FIRST_SLOTS);
  private keys: (string | undefined)[] = new Array<string | undefined>(FIRST_SLOTS).fill(undefined);
  private values: (PieceIds | undefined)[] = new Array<PieceIds | undefined>(FIRST_SLOTS).fill(undefined);

  constructor(readonly limit: number) {}

  get full(): boolean {
    return this.size >= this.limit;
  }

  /** The slot of text[start, end), or -1. */
  find(text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const key = this.keys[slot];
      if (key === undefined) return -1;
      if (this.hashes[slot] === hash && key.length === length && text.startsWith(key, start)) return slot;
    }
  }

  keyAt(slot: number): string {
    return this.keys[slot]!;
  }

  valueAt(slot: number): PieceIds {
    return this.values[slot]!;
  }

  /** Adds a piece known to be absent. */
  add(piece: string, ids: PieceIds, hash: number): void {
    if (this.size * 2 >= this.mask + 1) this.grow();
    let slot = hash & this.mask;
    while (this.keys[slot] !== undefined) slot = (slot + 1) & this.mask;
    this.hashes[slot] = hash;
    this.keys[slot] = piece;
    this.values[slot] = ids;
    this.size++;
  }

  /** Empties the table; it keeps its slots for the pieces to come. */
  clear(): void {
    this.keys.fill(undefined);
    this.values.fill(undefined);
    this.size = 0;
  }

  private grow(): void {
    const { hashes, keys, values } = this;
    const slots = (this.mask + 1) * 2;
    this.mask = slots - 1;
    this.hashes = new Int32Array(slots);
    this.keys = new Array<string | undefined>(slots).fill(undefined);
    this.values = new Array<PieceIds | undefined>(slots).fill(undefined);
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) this.add(keys[i]!, values[i]!, hashes[i]!);
  }
}

export class PieceCache {
  private young: PieceTable;
  private old: PieceTable;

  /** `generation`: pieces per generation (at most twice this many are kept). */
  constructor(generation: number) {
    this.young = new PieceTable(generation);
    this.old = new PieceTable(generation);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  /** The ids of the piece text[start, end), or undefined when it is not cached. */
  get(text: string, start: number, end: number): PieceIds | undefined {
    const hash = hashOf(text, start, end);
    let slot = this.young.find(text, start, end, hash);
    if (slot !== -1) return this.young.valueAt(slot);
    slot = this.old.find(text, start, end, hash);
    if (slot === -1) return undefined;
    const ids = this.old.valueAt(slot);
    this.add(this.old.keyAt(slot), ids, hash);
    return ids;
  }

  /** Caches a piece `get` did not find (a string of its own: never a slice of a whole prompt). */
  set(piece: string, ids: PieceIds): void {
    this.add(piece, ids, hashOf(piece, 0, piece.length));
  }

  private add(piece: string, ids: PieceIds, hash: number): void {
    if (this.young.full) {
      const emptied = this.old;
      emptied.clear();
      this.old = this.young;
      this.young = emptied;
    }
    this.young.add(piece, ids, hash);
  }
}
