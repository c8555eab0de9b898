// Text → ids for a byte-level BPE tokenizer, in the native order of steps: added tokens split out
// of the raw text (leftmost, longest first), each other segment NFC-normalized (when the
// tokenizer says so), split by the pre-tokenizer regex, and each piece byte-level BPE-merged.
// Pieces' ids are cached; a text holding a piece longer than MAX_PIECE_CHARS is left to the
// caller (merging such a piece costs more than the native core, and such input is often hostile),
// and so is one needing more uncached pieces than the caller allows (a bound on the time of one
// synchronous call: uncached pieces cost ~20x cached ones).

import { utf8Into } from './byte-level.js';
import { IdRun } from './id-run.js';
import { LiteralSearch } from './literal-search.js';
import { MAX_WORD_BYTES, WordMerger } from './merge-word.js';
import type { MergeTable } from './merge-table.js';
import { PieceCache } from './piece-cache.js';
import type { BpeShape } from './tokenizer-shape.js';
import type { Vocab } from './vocab.js';

/** The longest piece encoded here (3 UTF-8 bytes per UTF-16 unit at most must fit a word). */
export const MAX_PIECE_CHARS = 256;
/** Pieces up to this length are cached (longer ones are rarely repeated). */
const MAX_CACHED_CHARS = 64;
/** Pieces per cache generation (two generations: at most twice this many are kept). */
const CACHE_GENERATION = 65_536;

/**
 * Substrings this long may share their parent's memory (V8's sliced strings): a cached piece is
 * stored as a copy, so the cache never keeps whole prompts alive.
 */
const SHARED_SUBSTRING_CHARS = 13;

/** ES2024 string methods Node 20 has (the project's lib is ES2022). */
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** The shape without the vocab and merges JSON (the tables hold what is needed of them). */
export type EncoderShape = Omit<BpeShape, 'vocab' | 'merges'>;

export interface EncoderTables {
  shape: EncoderShape;
  /** For whole pieces under ignore_merges (null without it). */
  vocab: Vocab | null;
  merges: MergeTable;
  byteIds: Int32Array;
  byteChars: readonly string[];
}

export class FastBpeEncoder {
  private readonly shape: EncoderShape;
  private readonly vocab: Vocab | null;
  private readonly byteChars: readonly string[];
  private readonly merger: WordMerger;
  private readonly added: LiteralSearch | null;
  /** The split, anchored where its search starts. */
  private readonly stickySplit: RegExp;
  private readonly bytes = new Uint8Array(MAX_WORD_BYTES);
  private readonly decoder = new TextDecoder();
  private readonly pieces = new PieceCache(CACHE_GENERATION);
  /** Uncached pieces the current call may still merge. */
  private coldLeft = Infinity;
  /** The current call's ids. */
  private readonly run = new IdRun();

  constructor(tables: EncoderTables) {
    this.shape = tables.shape;
    this.vocab = tables.vocab;
    this.byteChars = tables.byteChars;
    this.merger = new WordMerger(tables.merges, tables.byteIds);
    this.stickySplit = new RegExp(tables.shape.split.source, `${tables.shape.split.flags.replace('g', '')}y`);
    // Leftmost-longest, as the native split finds them.
    this.added = tables.shape.addedTokens.size === 0 ? null : new LiteralSearch(tables.shape.addedTokens.keys());
  }

  /**
   * The ids of `text`, or null when this encoder does not answer for it: a piece too long, more
   * than `maxUncachedPieces` pieces not in the cache (those merged stay cached), or special tokens
   * asked for from a post-processor that adds some. `before`: ids the answer starts with (a cached
   * leading part's), so that the whole prompt's ids are made as one array.
   */
  encode(text: string, addSpecialTokens: boolean, maxUncachedPieces = Infinity, before?: ArrayLike<number>): number[] | null {
    if (addSpecialTokens && !this.shape.postProcessorAddsNothing) return null;
    this.coldLeft = maxUncachedPieces;
    // The native binding receives lone surrogates as U+FFFD.
    const checked = text as unknown as WellFormed;
    const whole = checked.isWellFormed() ? text : checked.toWellFormed();
    const ids = this.run;
    ids.reset();
    if (before !== undefined) ids.pushAll(before);
    const added = this.added;
    if (added === null) return this.encodeSegment(whole, ids) ? ids.take() : null;
    let at = 0;
    for (let index = added.next(whole, 0); index !== -1; index = added.next(whole, at)) {
      if (index > at && !this.encodeSegment(whole.slice(at, index), ids)) return null;
      ids.push(this.shape.addedTokens.get(added.matched)!);
      at = index + added.matched.length;
    }
    if (at < whole.length && !this.encodeSegment(at === 0 ? whole : whole.slice(at), ids)) return null;
    return ids.take();
  }

  /** Pieces cached now. */
  get cachedPieces(): number {
    return this.pieces.size;
  }

  private encodeSegment(raw: string, ids: IdRun): boolean {
    let text = this.shape.nfc ? raw.normalize('NFC') : raw;
    if (this.shape.addPrefixSpace && !text.startsWith(' ')) text = ` ${text}`;
    const split = this.shape.split;
    const sticky = this.stickySplit;
    let at = 0;
    /** Where the next search starts: past `at` only after an empty match. */
    let from = 0;
    for (;;) {
      // Most pieces start where the previous one ended: the sticky twin finds those without a
      // match array each (when a match starts at `at`, it is the one the global search finds).
      if (from === at) {
        sticky.lastIndex = at;
        if (sticky.test(text) && sticky.lastIndex > at) {
          const end = sticky.lastIndex;
          if (!this.encodePiece(text, at, end, ids)) return false;
          at = from = end;
          continue;
        }
      }
      split.lastIndex = from;
      const m = split.exec(text);
      if (m === null) break;
      const end = m.index + m[0].length;
      if (m.index > at && !this.encodePiece(text, at, m.index, ids)) return false;
      if (end > m.index) {
        if (!this.encodePiece(text, m.index, end, ids)) return false;
        from = end;
      } else {
        // An empty match splits here and the search goes on one code point further, as natively.
        from = end + (text.codePointAt(end)! > 0xffff ? 2 : 1);
      }
      at = end;
    }
    return at >= text.length || this.encodePiece(text, at, text.length, ids);
  }

  /** The ids of the piece text[start, end). */
  private encodePiece(text: string, start: number, end: number, ids: IdRun): boolean {
    const cached = this.pieces.get(text, start, end);
    if (cached !== undefined) {
      if (typeof cached === 'number') ids.push(cached);
      else for (const id of cached) ids.push(id);
      return true;
    }
    const length = end - start;
    if (length > MAX_PIECE_CHARS || --this.coldLeft < 0) return false;
    const piece = text.slice(start, end);
    const first = ids.length;
    const n = this.mergePiece(piece, ids);
    if (length <= MAX_CACHED_CHARS) {
      const key = length < SHARED_SUBSTRING_CHARS ? piece : this.decoder.decode(this.bytes.subarray(0, n));
      this.pieces.set(key, ids.length - first === 1 ? ids.at(first) : ids.slice(first));
    }
    return true;
  }

  /** Appends the piece's ids; its UTF-8 is left in `bytes`, and its length returned. */
  private mergePiece(piece: string, ids: IdRun): number {
    const n = utf8Into(piece, this.bytes);
    if (this.vocab !== null) {
      let spelled = '';
      for (let i = 0; i < n; i++) spelled += this.byteChars[this.bytes[i]!];
      const id = this.vocab.idOf(spelled);
      if (id !== undefined) {
        ids.push(id);
        return n;
      }
    }
    this.merger.merge(this.bytes, n, ids);
    return n;
  }
}
