// Token ids of prompts' leading parts, reused when a later prompt starts the same way (the same
// system prompt and tools, or the previous turns of a conversation): only the rest is encoded.
//
// Prompts are cut only where a special token starts. The tokenizer splits its input at added
// tokens before anything else, so the ids of `A + B`, with B starting at such a token, are the
// ids of A followed by the ids of B. Tokens that strip neighbouring whitespace or match single
// words only are not cut at (their match depends on the text around them). Special tokens appear
// in the ids exactly where they stand in the text, one id each, which gives every cut its token
// index without offsets. Bounded by the size of its arena.
//
// Entries' texts (UTF-16LE) and ids (32-bit) live in one arena, written as a ring: a new entry goes
// at the head, and the entries of the previous lap it overwrites leave (first in, first out). A
// hit on an entry the head is less than half the arena away from copies it to the head, so
// prompts in use stay (a second chance in place of strict least-recently-used order). Kept on the
// JS heap, every prompt stored would be copied twice by young-generation collections before
// reaching the old generation; kept in a buffer each, the buffers freed as entries left made V8
// run a full mark-compact every ~300 new prompts once the cache was full (a 10-60 ms pause in some
// request's time to first token). The arena is one allocation for the cache's life.

import { LiteralSearch } from '../fast-bpe/index.js';

export interface BoundaryToken {
  content: string;
  id: number;
}

/** One encoded prompt: where its text and ids are in the arena, and the token index of each kept cut (key → [char offset, ids before it]). */
export interface Entry {
  /** Byte offset of the text. */
  at: number;
  chars: number;
  /** Index of the first id in the arena's 32-bit view. */
  idsAt: number;
  /** Byte offset past the entry. */
  end: number;
  /** The arena's lap the entry was written in. */
  lap: number;
  cuts: Map<string, [number, number]>;
}

/** Where a prompt may be cut: char offsets, and for each a key naming the text before it. */
export interface PromptCuts {
  offsets: number[];
  /** Offset and a hash of the text before it: equal keys almost always mean equal leading text. */
  keys: string[];
}

export interface PrefixHit {
  /** Characters of the prompt the cached ids cover. */
  chars: number;
  /** A view of the cache's arena: valid until the next store, so copied by the caller at once. */
  ids: Uint32Array;
  /** The prompt they came from, marked used when the hit is counted. */
  entry: Entry;
}

/** An entry's place in the order of writes (an entry copied to the head leaves a stale one behind). */
interface Placed {
  entry: Entry;
  at: number;
  lap: number;
}

/** The longest leading text a lookup writes into its kept buffer; longer ones get their own. */
const MAX_PROBE_BYTES = 1 << 20;

export class PrefixTokenCache {
  private readonly capacity: number;
  private readonly boundaries: LiteralSearch;
  private readonly boundaryIds: ReadonlySet<number>;
  /** Special tokens' ids sit apart from the text's (above them, usually): most ids skip the set. */
  private readonly minBoundaryId: number;
  /** Cut key → the entries whose leading text has that key (one per distinct leading text). */
  private readonly byCut = new Map<string, Entry[]>();
  /** The arena (allocated by the first store) and its 32-bit view. */
  private arena: Buffer | null = null;
  private words: Uint32Array = new Uint32Array(0);
  /** Where the next entry goes, and how many times the ring has wrapped. */
  private head = 0;
  private lap = 0;
  /** Entries in the order they were written, oldest first from `first` on. */
  private order: Placed[] = [];
  private first = 0;
  private entries = 0;
  /** A lookup's leading text as UTF-16LE, kept for the next lookup (no 2 bytes a char allocated per prompt). */
  private probe = Buffer.alloc(0);
  private hitCount = 0;
  private missCount = 0;
  /** Stores waiting for the end of the turn, as flat triples (text, cuts, ids). */
  private later: (string | PromptCuts | readonly number[])[] = [];

  /**
   * `maxBytes`: the arena's size (texts at 2 bytes a char, ids at 4 bytes each). `minChars`:
   * shorter prompts pass by the cache. Its bookkeeping costs ~10 µs a prompt, more than
   * the fast encoder spends on a short one, and a short prompt saves little (bench/RESULTS.md,
   * "Prompt prefix cache on by default").
   */
  constructor(
    tokens: readonly BoundaryToken[],
    maxBytes: number,
    private readonly minChars = 0,
  ) {
    this.capacity = Math.floor(maxBytes / 4) * 4;
    if (tokens.length === 0) throw new Error('no special tokens to cut prompts at');
    // Leftmost-longest, as the tokenizer's search finds them.
    this.boundaries = new LiteralSearch(tokens.map((t) => t.content));
    this.boundaryIds = new Set(tokens.map((t) => t.id));
    this.minBoundaryId = Math.min(...this.boundaryIds);
  }

  /** Whether `text` is long enough to be worth caching. */
  takes(text: string): boolean {
    return text.length >= this.minChars;
  }

  /**
   * Where special tokens start in `text` (never 0: an empty leading part saves nothing), each
   * keyed by a hash of the text before it, so a lookup compares text only with its likely match.
   */
  cutsOf(text: string): PromptCuts {
    const offsets: number[] = [];
    const boundaries = this.boundaries;
    for (let at = boundaries.next(text, 0); at !== -1; at = boundaries.next(text, at + boundaries.matched.length)) if (at > 0) offsets.push(at);
    const keys: string[] = [];
    let hash = 0x811c9dc5;
    let at = 0;
    for (const offset of offsets) {
      for (; at < offset; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
      keys.push(`${offset}:${hash >>> 0}`);
    }
    return { offsets, keys };
  }

  /** The longest cached leading part of `text` ending at one of its cuts, counted as a hit or a miss. */
  lookup(text: string, cuts: PromptCuts): PrefixHit | null {
    const hit = this.find(text, cuts);
    this.count(hit);
    return hit;
  }

  /** `lookup` without counting: for a caller that may not use what it finds (then it calls `count`). */
  find(text: string, cuts: PromptCuts): PrefixHit | null {
    let probe: Buffer | null = null;
    for (let i = cuts.keys.length - 1; i >= 0; i--) {
      const key = cuts.keys[i]!;
      const bucket = this.byCut.get(key);
      if (bucket === undefined) continue;
      const cut = cuts.offsets[i]!;
      // Cuts are tried longest first: the first one's leading text holds every later one's.
      probe ??= this.probeOf(text, cut);
      for (const entry of bucket) {
        if (probe.compare(this.arena!, entry.at, entry.at + cut * 2, 0, cut * 2) !== 0) continue;
        return { chars: cut, ids: this.words.subarray(entry.idsAt, entry.idsAt + entry.cuts.get(key)![1]), entry };
      }
    }
    return null;
  }

  /** Counts a `find`'s answer as used: a hit's prompt becomes the most recently used. */
  count(hit: PrefixHit | null): void {
    if (hit === null) {
      this.missCount++;
      return;
    }
    // A hit copied to the head: its view follows it (the old place may be written over by the copy).
    if (this.touch(hit.entry)) hit.ids = this.words.subarray(hit.entry.idsAt, hit.entry.idsAt + hit.ids.length);
    this.hitCount++;
  }

  /**
   * `store` once this turn of the event loop is over: the prompt goes to its engine first, and the
   * copy into the arena (~45 µs for a new 1k-token prompt, in proportion for longer ones) leaves
   * its time to first token. A lookup in between misses, as before the prompt was seen. `ids` must
   * not change meanwhile (an engine request's ids never do: migration makes new ones).
   */
  storeSoon(text: string, cuts: PromptCuts, ids: readonly number[]): void {
    if (this.later.length === 0) setImmediate(this.storeLater);
    this.later.push(text, cuts, ids);
  }

  private readonly storeLater = (): void => {
    const later = this.later;
    this.later = [];
    for (let i = 0; i < later.length; i += 3) this.store(later[i] as string, later[i + 1] as PromptCuts, later[i + 2] as readonly number[]);
  };

  /** Remembers `text`'s ids; a text whose special tokens and ids do not line up is not kept. */
  store(text: string, cuts: PromptCuts, ids: readonly number[]): void {
    // One entry per leading text is enough to find it (a colliding hash only costs a later miss):
    // a prompt whose every cut is known (a repeated one) is done before its ids are read.
    const fresh: number[] = [];
    for (let i = 0; i < cuts.keys.length; i++) if (!this.byCut.has(cuts.keys[i]!)) fresh.push(i);
    if (fresh.length === 0) return;
    const tokenIndexes: number[] = [];
    const min = this.minBoundaryId;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id >= min && this.boundaryIds.has(id)) tokenIndexes.push(i);
    }
    // The text's first special token may stand at offset 0, which `cuts` leaves out.
    const skipped = tokenIndexes.length - cuts.offsets.length;
    if (skipped !== 0 && skipped !== 1) return;
    if (skipped === 1 && tokenIndexes[0] !== 0) return;
    const size = sizeOf(text.length, ids.length);
    // A prompt over a quarter of the arena would push out most others.
    if (size > this.capacity / 4) return;
    const kept = new Map<string, [number, number]>();
    for (const i of fresh) kept.set(cuts.keys[i]!, [cuts.offsets[i]!, tokenIndexes[i + skipped]!]);
    const entry: Entry = { at: 0, chars: text.length, idsAt: 0, end: 0, lap: 0, cuts: kept };
    this.place(entry, size);
    this.arena!.write(text, entry.at, text.length * 2, 'utf16le');
    this.words.set(ids, entry.idsAt);
    for (const key of kept.keys()) this.byCut.set(key, [entry]);
    this.entries++;
  }

  /** Prompts kept. */
  get size(): number {
    return this.entries;
  }

  /** Lookups that found a leading part, and those that did not. */
  get hits(): number {
    return this.hitCount;
  }

  get misses(): number {
    return this.missCount;
  }

  /** `text`'s first `chars` characters as UTF-16LE, in the kept probe buffer (grown up to MAX_PROBE_BYTES). */
  private probeOf(text: string, chars: number): Buffer {
    const bytes = chars * 2;
    if (bytes > MAX_PROBE_BYTES) return Buffer.from(text.slice(0, chars), 'utf16le');
    if (this.probe.length < bytes) this.probe = Buffer.allocUnsafeSlow(Math.min(MAX_PROBE_BYTES, Math.max(bytes, this.probe.length * 2)));
    this.probe.write(text, 0, bytes, 'utf16le');
    return this.probe;
  }

  /**
   * Gives `entry` the next `size` bytes at the head (wrapping to the start when they do not fit),
   * evicting the entries of the previous lap there; `entry` itself is never evicted by this.
   */
  private place(entry: Entry, size: number): void {
    if (this.arena === null) {
      this.arena = Buffer.allocUnsafeSlow(this.capacity);
      this.words = new Uint32Array(this.arena.buffer, this.arena.byteOffset, this.capacity / 4);
    }
    if (this.head + size > this.capacity) {
      // The rest of the previous lap sits past the head: it leaves now, oldest first as ever.
      this.evictBefore(Infinity, entry);
      this.lap++;
      this.head = 0;
    }
    const end = this.head + size;
    this.evictBefore(end, entry);
    entry.at = this.head;
    entry.idsAt = (this.head + alignedTextBytes(entry.chars)) / 4;
    entry.end = end;
    entry.lap = this.lap;
    this.head = end;
    this.order.push({ entry, at: entry.at, lap: entry.lap });
  }

  /**
   * Evicts the previous lap's entries that start before `offset`, oldest first (stale places are
   * dropped on the way; `keep`, being moved, is not evicted).
   */
  private evictBefore(offset: number, keep: Entry): void {
    const order = this.order;
    while (this.first < order.length) {
      const p = order[this.first]!;
      const stale = p.entry.at !== p.at || p.entry.lap !== p.lap || p.entry === keep;
      if (!stale && !(p.lap < this.lap && p.at < offset)) break;
      this.first++;
      if (!stale) this.evict(p.entry);
    }
    // The evicted places go once they are half the list.
    if (this.first > 1024 && this.first * 2 > order.length) {
      this.order = order.slice(this.first);
      this.first = 0;
    }
  }

  /**
   * A hit on an entry the next half arena of writes would overwrite: it is copied to the head. An
   * entry hit at least once in every half arena of writes never leaves.
   */
  private touch(entry: Entry): boolean {
    const writesBefore = entry.lap === this.lap ? this.capacity - this.head + entry.at : entry.at - this.head;
    if (writesBefore >= this.capacity / 2) return false;
    const { at, end } = entry;
    const size = end - at;
    this.place(entry, size);
    // The places may overlap (an entry right at the head): copyWithin moves as memmove does.
    this.arena!.copyWithin(entry.at, at, end);
    return true;
  }

  private evict(entry: Entry): void {
    this.entries--;
    for (const key of entry.cuts.keys()) {
      const bucket = this.byCut.get(key)!;
      bucket.splice(bucket.indexOf(entry), 1);
      if (bucket.length === 0) this.byCut.delete(key);
    }
  }
}

/** An entry's text bytes, rounded up so its ids start 4-byte aligned. */
const alignedTextBytes = (chars: number): number => (chars * 2 + 3) & ~3;

const sizeOf = (chars: number, ids: number): number => alignedTextBytes(chars) + ids * 4;

/** The special tokens of a tokenizer.json that are safe to cut at. */
export function boundaryTokensOf(tokenizerJson: { added_tokens?: readonly AddedTokenJson[] }): BoundaryToken[] {
  return (tokenizerJson.added_tokens ?? [])
    .filter((t) => t.special && !t.lstrip && !t.rstrip && !t.single_word && t.content.length > 0)
    .map((t) => ({ content: t.content, id: t.id }));
}

export interface AddedTokenJson {
  id: number;
  content: string;
  special?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
  single_word?: boolean;
}
