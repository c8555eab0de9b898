// Every token id's raw output bytes, built once per model so generated tokens are detokenized in
// JS without calling the native tokenizer per token. Ids are dense, so the bytes live in one pool
// addressed by an offsets array, and per-id facts in one flags array.

import { readFileSync } from 'node:fs';
import { BYTE_OF_CHAR } from './byte-level.js';
import { decoderSchemeFrom, wordPieceText, type DecoderScheme, type LeadingRule } from './decoder-scheme.js';
import { Utf8StreamDecoder } from './utf8-stream.js';

const PRESENT = 1;
const SPECIAL = 2;
/** A `<0xNN>` byte token: its space is not a "▁", so Metaspace's first-token rule skips it. */
const BYTE_TOKEN = 4;
/** A WordPiece token that continued a word (its prefix was removed). */
const CONTINUATION = 8;

interface AddedToken {
  id: number;
  content: string;
  special?: boolean;
}

/** The structural shape other modules (the mocker) rely on. */
export interface TokenBytesSource {
  vocabSize: number;
  tokenBytes(id: number): Uint8Array | null;
  specialIds: ReadonlySet<number>;
}

const encoder = new TextEncoder();

/** A table's arrays and first-token rule: all it is besides caches. */
export interface TokenTableParts {
  pool: Uint8Array;
  offsets: Uint32Array;
  flags: Uint8Array;
  leading: LeadingRule;
}

export class TokenTable implements TokenBytesSource {
  /** One past the highest id that has bytes. */
  readonly vocabSize: number;
  readonly specialIds: ReadonlySet<number>;
  /** What happens at the start of a whole decoded sequence (see `decode`). */
  readonly leading: LeadingRule;
  /** @internal The byte pool and per-id ranges, read directly by the incremental decoder. */
  readonly pool: Uint8Array;
  /** @internal */
  readonly offsets: Uint32Array;
  private readonly flags: Uint8Array;
  /** Lazily filled: a token's text when its bytes are complete UTF-8 on their own, else null. */
  private readonly texts: (string | null | undefined)[];
  private readonly wordPiecePrefix: Uint8Array;

  private constructor(
    pool: Uint8Array,
    offsets: Uint32Array,
    flags: Uint8Array,
    leading: LeadingRule,
  ) {
    this.pool = pool;
    this.offsets = offsets;
    this.flags = flags;
    this.leading = leading;
    this.vocabSize = flags.length;
    this.texts = new Array<string | null | undefined>(flags.length).fill(undefined);
    const specials = new Set<number>();
    for (let id = 0; id < flags.length; id++) if (flags[id]! & SPECIAL) specials.add(id);
    this.specialIds = specials;
    this.wordPiecePrefix = encoder.encode(leading.kind === 'wordpiece' ? leading.prefix : '');
  }

  /** What a table is made of, to hand to another thread (the arrays move rather than copy). */
  toParts(): TokenTableParts {
    return { pool: this.pool, offsets: this.offsets, flags: this.flags, leading: this.leading };
  }

  /** A table from parts another thread built (`toParts`). */
  static fromParts({ pool, offsets, flags, leading }: TokenTableParts): TokenTable {
    return new TokenTable(pool, offsets, flags, leading);
  }

  /** Reads a tokenizer.json, and tokenizer_config.json's `added_tokens_decoder` when given. */
  static fromFile(tokenizerJsonPath: string, tokenizerConfigPath?: string): TokenTable {
    const tokenizer = JSON.parse(readFileSync(tokenizerJsonPath, 'utf8')) as unknown;
    const config = tokenizerConfigPath ? (JSON.parse(readFileSync(tokenizerConfigPath, 'utf8')) as unknown) : undefined;
    return TokenTable.fromJson(tokenizer, config);
  }

  /**
   * Builds the table from a parsed tokenizer.json (`model.vocab`, `added_tokens`, `decoder`) and
   * optionally a parsed tokenizer_config.json. Added tokens decode to their content as UTF-8;
   * the config's `added_tokens_decoder` only fills ids the tokenizer.json does not list, because
   * the tokenizer.json is what the native tokenizer uses too.
   */
  static fromJson(tokenizerJson: unknown, tokenizerConfig?: unknown): TokenTable {
    const root = tokenizerJson as { model?: { vocab?: unknown }; added_tokens?: AddedToken[]; decoder?: unknown };
    const scheme = decoderSchemeFrom(root.decoder);
    const vocab = vocabEntries(root.model?.vocab);
    const added = new Map<number, AddedToken>();
    for (const t of root.added_tokens ?? []) added.set(t.id, t);
    const configAdded = (tokenizerConfig as { added_tokens_decoder?: Record<string, AddedToken> } | undefined)
      ?.added_tokens_decoder;
    for (const [id, t] of Object.entries(configAdded ?? {})) {
      if (!added.has(Number(id))) added.set(Number(id), { ...t, id: Number(id) });
    }

    let size = 0;
    for (const [, id] of vocab) if (id >= size) size = id + 1;
    for (const id of added.keys()) if (id >= size) size = id + 1;

    const builder = new PoolBuilder(size);
    // Added tokens win over vocabulary entries with the same id, as in the native decoder.
    for (const [token, id] of vocab) if (!added.has(id)) builder.addVocab(scheme, id, token);
    for (const t of added.values()) builder.addAdded(scheme, t);
    return new TokenTable(builder.finish(), builder.offsets, builder.flags, scheme.leading);
  }

  tokenBytes(id: number): Uint8Array | null {
    if (!this.has(id)) return null;
    return this.pool.subarray(this.offsets[id]!, this.offsets[id + 1]!);
  }

  has(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < this.vocabSize && (this.flags[id]! & PRESENT) !== 0;
  }

  isSpecial(id: number): boolean {
    return this.has(id) && (this.flags[id]! & SPECIAL) !== 0;
  }

  /**
   * The token's text when its bytes form complete UTF-8 by themselves, else null (a fragment of
   * a multi-byte character, or an id without bytes). Cached: the detokenizer's fast path.
   */
  tokenText(id: number): string | null {
    const cached = this.texts[id];
    if (cached !== undefined) return cached;
    if (!this.has(id)) return null;
    const d = new Utf8StreamDecoder();
    const text = d.decode(this.pool, this.offsets[id]!, this.offsets[id + 1]!);
    const value = d.sawInvalid || !d.idle ? null : text;
    this.texts[id] = value;
    return value;
  }

  /**
   * Decodes a whole sequence the way the tokenizer's own decode would, including the rule for
   * the first token (Metaspace/Strip leading space, WordPiece joining). Streaming output uses
   * `IncrementalDecoder` instead, which never applies the first-token rule because generated
   * text continues a prompt.
   */
  decode(ids: readonly number[], skipSpecialTokens: boolean): string {
    const parts: Uint8Array[] = [];
    let first = true;
    for (const id of ids) {
      if (!this.has(id) || (skipSpecialTokens && this.flags[id]! & SPECIAL)) continue;
      let bytes = this.tokenBytes(id)!;
      if (first) bytes = this.asFirstToken(id, bytes);
      first = false;
      parts.push(bytes);
    }
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    const d = new Utf8StreamDecoder();
    return d.decode(all, 0, all.length) + d.flush();
  }

  private asFirstToken(id: number, bytes: Uint8Array): Uint8Array {
    const rule = this.leading;
    const flags = this.flags[id]!;
    if (rule.kind === 'none') return bytes;
    if (rule.kind === 'strip') {
      let n = 0;
      while (n < rule.count && bytes[n] === 0x20) n++;
      return bytes.subarray(n);
    }
    if (rule.kind === 'metaspace') return flags & BYTE_TOKEN ? bytes : bytes.filter((b) => b !== 0x20);
    if (flags & CONTINUATION) {
      const out = new Uint8Array(this.wordPiecePrefix.length + bytes.length);
      out.set(this.wordPiecePrefix);
      out.set(bytes, this.wordPiecePrefix.length);
      return out;
    }
    return bytes[0] === 0x20 ? bytes.subarray(1) : bytes;
  }
}

function vocabEntries(vocab: unknown): Array<[string, number]> {
  if (Array.isArray(vocab)) {
    // Unigram models list [piece, score] pairs; the index is the id.
    return (vocab as Array<[string, number]>).map(([piece], id) => [piece, id]);
  }
  if (vocab && typeof vocab === 'object') return Object.entries(vocab as Record<string, number>);
  throw new Error('tokenizer.json has no model.vocab');
}

/** Appends each id's bytes to a growing pool; ids may arrive in any order. */
class PoolBuilder {
  readonly flags: Uint8Array;
  readonly offsets: Uint32Array;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  private pool = new Uint8Array(1 << 20);
  private used = 0;

  constructor(size: number) {
    this.flags = new Uint8Array(size);
    this.offsets = new Uint32Array(size + 1);
    this.starts = new Uint32Array(size);
    this.ends = new Uint32Array(size);
  }

  addVocab(scheme: DecoderScheme, id: number, token: string): void {
    let flags = PRESENT;
    if (scheme.byteFallback && isByteToken(token)) {
      this.reserve(1);
      this.pool[this.used++] = parseInt(token.slice(3, 5), 16);
      flags |= BYTE_TOKEN;
      this.close(id, this.used - 1, flags);
      return;
    }
    const start = this.used;
    if (scheme.byteLevel) this.putByteLevel(token);
    else if (scheme.wordPiecePrefix !== null) {
      const { text, continuation } = wordPieceText(scheme, token);
      if (continuation) flags |= CONTINUATION;
      this.putUtf8(text);
    } else this.putUtf8(replaceAll(scheme, token));
    this.close(id, start, flags);
  }

  addAdded(scheme: DecoderScheme, t: AddedToken): void {
    const start = this.used;
    let flags = PRESENT | (t.special ? SPECIAL : 0);
    if (scheme.byteLevel) this.putUtf8(t.content);
    else if (scheme.wordPiecePrefix !== null) {
      const { text, continuation } = wordPieceText(scheme, t.content);
      if (continuation) flags |= CONTINUATION;
      this.putUtf8(text);
    } else this.putUtf8(replaceAll(scheme, t.content));
    this.close(t.id, start, flags);
  }

  /** Compacts the pool into id order so every id's bytes are `pool[offsets[id], offsets[id+1])`. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.used);
    let at = 0;
    for (let id = 0; id < this.flags.length; id++) {
      this.offsets[id] = at;
      const s = this.starts[id]!;
      const e = this.ends[id]!;
      out.set(this.pool.subarray(s, e), at);
      at += e - s;
    }
    this.offsets[this.flags.length] = at;
    return out;
  }

  private close(id: number, start: number, flags: number): void {
    this.starts[id] = start;
    this.ends[id] = this.used;
    this.flags[id] = flags;
  }

  private putByteLevel(token: string): void {
    const start = this.used;
    this.reserve(token.length);
    for (let i = 0; i < token.length; i++) {
      const c = token.charCodeAt(i);
      const b = c < BYTE_OF_CHAR.length ? BYTE_OF_CHAR[c]! : -1;
      if (b < 0) {
        // A character outside the alphabet: the native decoder keeps the token's own UTF-8.
        this.used = start;
        this.putUtf8(token);
        return;
      }
      this.pool[this.used++] = b;
    }
  }

  private putUtf8(text: string): void {
    this.reserve(text.length * 3);
    this.used += encoder.encodeInto(text, this.pool.subarray(this.used)).written;
  }

  private reserve(n: number): void {
    if (this.used + n <= this.pool.length) return;
    const grown = new Uint8Array(Math.max(this.pool.length * 2, this.used + n));
    grown.set(this.pool.subarray(0, this.used));
    this.pool = grown;
  }
}

function isByteToken(token: string): boolean {
  return token.length === 6 && token.startsWith('<0x') && token[5] === '>' && /^[0-9a-fA-F]{2}$/.test(token.slice(3, 5));
}

function replaceAll(scheme: DecoderScheme, text: string): string {
  for (const [from, to] of scheme.replacements) text = text.replaceAll(from, to);
  return text;
}
