// Token ids of prompts' leading parts, reused when a later prompt starts the same way (the same
// system prompt and tools, or the previous turns of a conversation): only the rest is encoded.
//
// Prompts are cut only where a special token starts. The tokenizer splits its input at added
// tokens before anything else, so the ids of `A + B`, with B starting at such a token, are the
// ids of A followed by the ids of B. Tokens that strip neighbouring whitespace or match single
// words only are not cut at (their match depends on the text around them). Special tokens appear
// in the ids exactly where they stand in the text, one id each, which gives every cut its token
// index without offsets. Bounded by an estimate of its memory, least recently used out first.
//
// An entry's text and ids are kept outside the JS heap (a UTF-16 buffer and a Uint32Array): every
// prompt stored lives on, and on the heap each young-generation collection would copy it twice
// (about 20 KB for a 1k-token prompt) before it reached the old generation.

import { LiteralSearch } from '../fast-bpe/index.js';

export interface BoundaryToken {
  content: string;
  id: number;
}

/** One encoded prompt: its text (UTF-16LE), ids, and the token index of each kept cut (key → [char offset, ids before it]). */
export interface Entry {
  text: Buffer;
  ids: Uint32Array;
  cuts: Map<string, [number, number]>;
  bytes: number;
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
  /** A view of the cache's own ids: copied by the caller, never kept. */
  ids: Uint32Array;
  /** The prompt they came from, marked used when the hit is counted. */
  entry: Entry;
}

/** The longest leading text a lookup writes into its kept buffer; longer ones get their own. */
const MAX_PROBE_BYTES = 1 << 20;

export class PrefixTokenCache {
  private readonly boundaries: LiteralSearch;
  private readonly boundaryIds: ReadonlySet<number>;
  /** Special tokens' ids sit apart from the text's (above them, usually): most ids skip the set. */
  private readonly minBoundaryId: number;
  /** Least recently used first. */
  private readonly entries = new Set<Entry>();
  /** Cut key → the entries whose leading text has that key (one per distinct leading text). */
  private readonly byCut = new Map<string, Entry[]>();
  private bytes = 0;
  /** A lookup's leading text as UTF-16LE, kept for the next lookup (no 2 bytes a char allocated per prompt). */
  private probe = Buffer.alloc(0);
  private hitCount = 0;
  private missCount = 0;

  /**
   * `minChars`: shorter prompts pass by the cache. Its bookkeeping costs ~10 µs a prompt, more than
   * the fast encoder spends on a short one, and a short prompt saves little (bench/RESULTS.md,
   * "Prompt prefix cache on by default").
   */
  constructor(
    tokens: readonly BoundaryToken[],
    private readonly maxBytes: number,
    private readonly minChars = 0,
  ) {
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
        if (probe.compare(entry.text, 0, cut * 2, 0, cut * 2) !== 0) continue;
        return { chars: cut, ids: entry.ids.subarray(0, entry.cuts.get(key)![1]), entry };
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
    this.touch(hit.entry);
    this.hitCount++;
  }

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
    const kept = new Map<string, [number, number]>();
    for (const i of fresh) kept.set(cuts.keys[i]!, [cuts.offsets[i]!, tokenIndexes[i + skipped]!]);
    // Filled by set(): the constructor given an array copies it to a temporary list first (~8 bytes an id of garbage).
    const stored = new Uint32Array(ids.length);
    stored.set(ids);
    const entry: Entry = {
      text: Buffer.from(text, 'utf16le'),
      ids: stored,
      cuts: kept,
      bytes: 64 + text.length * 2 + ids.length * 8 + cuts.offsets.length * 64,
    };
    for (const key of kept.keys()) this.byCut.set(key, [entry]);
    this.entries.add(entry);
    this.bytes += entry.bytes;
    while (this.bytes > this.maxBytes) this.evict(this.entries.values().next().value!);
  }

  /** Prompts kept. */
  get size(): number {
    return this.entries.size;
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

  private touch(entry: Entry): void {
    this.entries.delete(entry);
    this.entries.add(entry);
  }

  private evict(entry: Entry): void {
    this.entries.delete(entry);
    this.bytes -= entry.bytes;
    for (const key of entry.cuts.keys()) {
      const bucket = this.byCut.get(key)!;
      bucket.splice(bucket.indexOf(entry), 1);
      if (bucket.length === 0) this.byCut.delete(key);
    }
  }
}

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
