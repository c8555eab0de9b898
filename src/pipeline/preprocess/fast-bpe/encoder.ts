// Text → ids for a byte-level BPE tokenizer, in the native order of steps: added tokens split out
// of the raw text (leftmost, longest first), each other segment NFC-normalized (when the
// tokenizer says so), split by the pre-tokenizer regex, and each piece byte-level BPE-merged.
// Pieces' ids are cached; a text holding a piece longer than MAX_PIECE_CHARS is left to the
// caller (merging such a piece costs more than the native core, and such input is often hostile).

import { utf8Into } from './byte-level.js';
import { MAX_WORD_BYTES, WordMerger } from './merge-word.js';
import type { MergeTable } from './merge-table.js';
import type { BpeShape } from './tokenizer-shape.js';

/** The longest piece encoded here (3 UTF-8 bytes per UTF-16 unit at most must fit a word). */
export const MAX_PIECE_CHARS = 256;
/** Pieces up to this length are cached (longer ones are rarely repeated). */
const MAX_CACHED_CHARS = 64;
/** Cached pieces; the oldest leave first. */
const MAX_CACHE_ENTRIES = 100_000;

const REGEXP_SPECIALS = /[.*+?^${}()|[\]\\]/g;

/** ES2024 string methods Node 20 has (the project's lib is ES2022). */
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

export interface EncoderTables {
  shape: BpeShape;
  vocab: Map<string, number>;
  merges: MergeTable;
  byteIds: Int32Array;
  byteChars: readonly string[];
}

export class FastBpeEncoder {
  private readonly shape: BpeShape;
  private readonly vocab: Map<string, number>;
  private readonly byteChars: readonly string[];
  private readonly merger: WordMerger;
  private readonly addedPattern: RegExp | null;
  private readonly bytes = new Uint8Array(MAX_WORD_BYTES);
  /** Piece → its ids (a lone id as a number). */
  private readonly cache = new Map<string, number | number[]>();

  constructor(tables: EncoderTables) {
    this.shape = tables.shape;
    this.vocab = tables.vocab;
    this.byteChars = tables.byteChars;
    this.merger = new WordMerger(tables.merges, tables.byteIds);
    // Longest first, so the alternation matches leftmost-longest as the native split does.
    const contents = [...tables.shape.addedTokens.keys()].sort((a, b) => b.length - a.length);
    this.addedPattern = contents.length === 0 ? null : new RegExp(contents.map((c) => c.replace(REGEXP_SPECIALS, '\\$&')).join('|'), 'g');
  }

  /**
   * The ids of `text`, or null when this encoder does not answer for it: a piece too long, or
   * special tokens asked for from a post-processor that adds some.
   */
  encode(text: string, addSpecialTokens: boolean): number[] | null {
    if (addSpecialTokens && !this.shape.postProcessorAddsNothing) return null;
    // The native binding receives lone surrogates as U+FFFD.
    const checked = text as unknown as WellFormed;
    const whole = checked.isWellFormed() ? text : checked.toWellFormed();
    const ids: number[] = [];
    const added = this.addedPattern;
    if (added === null) return this.encodeSegment(whole, ids) ? ids : null;
    let at = 0;
    added.lastIndex = 0;
    for (let m = added.exec(whole); m !== null; m = added.exec(whole)) {
      if (m.index > at && !this.encodeSegment(whole.slice(at, m.index), ids)) return null;
      ids.push(this.shape.addedTokens.get(m[0])!);
      at = m.index + m[0].length;
    }
    if (at < whole.length && !this.encodeSegment(at === 0 ? whole : whole.slice(at), ids)) return null;
    return ids;
  }

  /** Pieces cached now. */
  get cachedPieces(): number {
    return this.cache.size;
  }

  private encodeSegment(raw: string, ids: number[]): boolean {
    let text = this.shape.nfc ? raw.normalize('NFC') : raw;
    if (this.shape.addPrefixSpace && !text.startsWith(' ')) text = ` ${text}`;
    const split = this.shape.split;
    split.lastIndex = 0;
    let at = 0;
    for (let m = split.exec(text); m !== null; m = split.exec(text)) {
      const end = m.index + m[0].length;
      if (m.index > at && !this.encodePiece(text.slice(at, m.index), ids)) return false;
      if (end > m.index) {
        if (!this.encodePiece(m[0], ids)) return false;
      } else {
        // An empty match: step over one code point, as the native search does.
        split.lastIndex = end + (text.codePointAt(end)! > 0xffff ? 2 : 1);
        continue;
      }
      at = end;
    }
    return at >= text.length || this.encodePiece(text.slice(at), ids);
  }

  private encodePiece(piece: string, ids: number[]): boolean {
    const cached = this.cache.get(piece);
    if (cached !== undefined) {
      if (typeof cached === 'number') ids.push(cached);
      else for (const id of cached) ids.push(id);
      return true;
    }
    if (piece.length > MAX_PIECE_CHARS) return false;
    const start = ids.length;
    this.mergePiece(piece, ids);
    if (piece.length <= MAX_CACHED_CHARS) {
      if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(piece, ids.length - start === 1 ? ids[start]! : ids.slice(start));
    }
    return true;
  }

  private mergePiece(piece: string, ids: number[]): void {
    const n = utf8Into(piece, this.bytes);
    if (this.shape.ignoreMerges) {
      let spelled = '';
      for (let i = 0; i < n; i++) spelled += this.byteChars[this.bytes[i]!];
      const id = this.vocab.get(spelled);
      if (id !== undefined) {
        ids.push(id);
        return;
      }
    }
    this.merger.merge(this.bytes, n, ids);
  }
}
