// Text → token ids with Hugging Face's native tokenizer (the same Rust core upstream uses), and
// for byte-level BPE tokenizers a JavaScript encoder with the same ids (fast-bpe/) that answers
// short texts synchronously, 10-20x cheaper than a native call. Longer texts, and texts
// the fast encoder does not answer for, are encoded natively on the libuv thread pool, off the
// event loop.

import type { Tokenizer } from 'tokenizers';
import { FastBpeEncoder } from '../fast-bpe/index.js';
import type { PrefixTokenCache } from './prefix-cache.js';
import { tokenizerFile, type TokenizerFile } from './tokenizer-file.js';

interface PendingEncode {
  text: string;
  resolve(ids: number[]): void;
  reject(err: unknown): void;
}

/** Longer texts are encoded alone, so one long prompt does not hold back a batch of short ones. */
const MAX_BATCHED_CHARS = 8192;

/**
 * Prefix-cache hits that are also encoded whole and compared, per tokenizer: a tokenizer whose
 * pieces do not add up to the whole (a normalizer or pre-tokenizer that looks across special
 * tokens) turns the cache off before it changes any answer.
 */
const VERIFIED_HITS = 8;

/**
 * Texts the fast encoder answers that are also encoded natively and compared, per tokenizer: any
 * difference turns the fast encoder off before it changes an answer.
 */
const VERIFIED_FAST_TEXTS = 8;

/**
 * Texts up to this many characters, needing at most FAST_BPE_MAX_UNCACHED_PIECES pieces the fast
 * encoder has not cached, are encoded by it on the calling thread; others go to the native core
 * off the event loop. Both bounds keep one call to about 1 ms of CPU (1.5 ms on a busy machine):
 * cached pieces cost ~0.05 µs per character, uncached ones ~2–3.5 µs each (bench/RESULTS.md,
 * "Fast BPE encoder").
 */
export const DEFAULT_FAST_BPE_MAX_CHARS = 8192;
const FAST_BPE_MAX_UNCACHED_PIECES = 256;

export interface TokenizerOptions {
  /** Reuses the ids of prompts' leading parts (chat prompts only: completions add special tokens). */
  prefixCache?: PrefixTokenCache | null;
  /** Where a disabled cache or fast encoder is reported. */
  warn?: (message: string) => void;
  /**
   * Longest text the fast encoder answers synchronously; 0: native only (no fast encoder is
   * built); Infinity (off the event loop): any text, however many uncached pieces it needs.
   */
  fastBpeMaxChars?: number;
}

export class HfTokenizer {
  /** Held so that other tokenizers of the same file share its load while this one lives. */
  private readonly file: TokenizerFile;
  private readonly native: Tokenizer;
  /** Short texts waiting for the end of this event-loop turn, by addSpecialTokens (0/1). */
  private readonly pending: [PendingEncode[], PendingEncode[]] = [[], []];
  private flushScheduled = false;
  private prefixCache: PrefixTokenCache | null;
  private unverifiedHits = VERIFIED_HITS;
  private fast: FastBpeEncoder | null = null;
  private fastStatus = 'off';
  private readonly fastMaxChars: number;
  private readonly maxUncachedPieces: number;
  private unverifiedFastTexts = VERIFIED_FAST_TEXTS;

  constructor(
    tokenizerJsonPath: string,
    private readonly opts: TokenizerOptions = {},
  ) {
    this.file = tokenizerFile(tokenizerJsonPath);
    this.native = this.file.native;
    this.prefixCache = opts.prefixCache ?? null;
    this.fastMaxChars = opts.fastBpeMaxChars ?? DEFAULT_FAST_BPE_MAX_CHARS;
    this.maxUncachedPieces = this.fastMaxChars === Infinity ? Infinity : FAST_BPE_MAX_UNCACHED_PIECES;
    if (this.fastMaxChars > 0) {
      // An encoder of its own: its piece cache and the checks that may turn it off are this tokenizer's.
      const load = this.file.fastTables;
      if (load.ok) this.fast = new FastBpeEncoder(load.tables);
      this.fastStatus = load.ok ? 'on' : load.reason;
    }
  }

  /** The fast encoder in use, if any (null once a check turned it off). */
  get fastEncoder(): FastBpeEncoder | null {
    return this.fast;
  }

  /** "on", "off", "unsupported: <reason>", or why a check turned it off. */
  get fastEncoderStatus(): string {
    return this.fastStatus;
  }

  /** The prefix cache in use, if any (null once a check turned it off). */
  get cache(): PrefixTokenCache | null {
    return this.prefixCache;
  }

  /**
   * Chat prompts are encoded without the post-processor's special tokens: the template already
   * wrote BOS and friends as text, and added special tokens in that text still map to their ids.
   * Completions prompts are raw text, so they get the post-processor's tokens (Llama's BOS; Qwen
   * adds none), as upstream and vLLM do. NUL bytes are stripped first, as upstream does.
   *
   * Short texts requested in the same event-loop turn go to the thread pool as one `encodeBatch`:
   * one task and one hop back instead of one per request, which under load costs the event loop
   * a third of the time per text (bench/RESULTS.md, gRPC section).
   */
  encode(text: string, addSpecialTokens: boolean): Promise<number[]> {
    const clean = text.includes('\0') ? text.replaceAll('\0', '') : text;
    if (this.prefixCache?.takes(clean) && !addSpecialTokens) return this.encodeWithPrefixCache(clean, this.prefixCache);
    return this.encodeText(clean, addSpecialTokens);
  }

  /**
   * The ids of a text now, on the calling thread, when the fast encoder answers it (or, for a
   * prompt the prefix cache takes, what the cache does not cover) and has passed its checks against
   * the native core; null otherwise (then `encode`). For many small pieces (a bridged engine's
   * answer re-tokenized chunk by chunk), where a promise each costs more than the encode, and for
   * a long prompt, whose tokenizing then takes no turn of the event loop.
   */
  encodeNow(text: string, addSpecialTokens: boolean): number[] | null {
    if (this.fast === null || this.unverifiedFastTexts > 0 || text.length > this.fastMaxChars || text.includes('\0')) return null;
    if (this.prefixCache?.takes(text) && !addSpecialTokens) return this.encodeNowWithPrefixCache(text, this.fast, this.prefixCache);
    return this.fast.encode(text, addSpecialTokens, this.maxUncachedPieces);
  }

  /**
   * encodeWithPrefixCache with nothing to wait for: the fast encoder answers the rest (or the
   * whole, on a miss) and no hit is left to check natively. Changes nothing when it gives up.
   */
  private encodeNowWithPrefixCache(text: string, fast: FastBpeEncoder, cache: PrefixTokenCache): number[] | null {
    const cuts = cache.cutsOf(text);
    const hit = cache.find(text, cuts);
    if (hit !== null && this.unverifiedHits > 0) return null;
    const ids = hit === null ? fast.encode(text, false, this.maxUncachedPieces) : fast.encode(text.slice(hit.chars), false, this.maxUncachedPieces, hit.ids);
    if (ids === null) return null;
    cache.count(hit);
    cache.storeSoon(text, cuts, ids);
    return ids;
  }

  private encodeText(clean: string, addSpecialTokens: boolean): Promise<number[]> {
    if (this.fast !== null && clean.length <= this.fastMaxChars) {
      const ids = this.fast.encode(clean, addSpecialTokens, this.maxUncachedPieces);
      if (ids !== null) return this.unverifiedFastTexts > 0 ? this.verifyFast(clean, addSpecialTokens, ids) : Promise.resolve(ids);
    }
    return this.encodeNative(clean, addSpecialTokens);
  }

  /** The native ids of a text the fast encoder answered; a difference turns the fast encoder off. */
  private async verifyFast(text: string, addSpecialTokens: boolean, fastIds: number[]): Promise<number[]> {
    this.unverifiedFastTexts--;
    const ids = await this.encodeNative(text, addSpecialTokens);
    if (this.fast !== null && !sameIds(ids, fastIds)) {
      this.fast = null;
      this.fastStatus = 'off: its ids differed from the native ones on a checked text';
      this.opts.warn?.('Fast BPE encoder turned off: it did not give the native token ids for a prompt; using the native tokenizer');
    }
    return ids;
  }

  private encodeNative(clean: string, addSpecialTokens: boolean): Promise<number[]> {
    if (clean.length > MAX_BATCHED_CHARS) return this.encodeOne(clean, addSpecialTokens);
    return new Promise((resolve, reject) => {
      this.pending[addSpecialTokens ? 1 : 0].push({ text: clean, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  /** The cached leading part's ids plus the rest encoded now; the whole remembered for later prompts. */
  private async encodeWithPrefixCache(text: string, cache: PrefixTokenCache): Promise<number[]> {
    const cuts = cache.cutsOf(text);
    const hit = cache.lookup(text, cuts);
    if (!hit) {
      const ids = await this.encodeText(text, false);
      cache.storeSoon(text, cuts, ids);
      return ids;
    }
    // The hit's ids are a view of the cache's arena, which stores made meanwhile write over: copied before the wait.
    const cached = hit.ids.slice();
    const rest = await this.encodeText(text.slice(hit.chars), false);
    const ids = joined(cached, rest);
    if (this.unverifiedHits > 0) {
      this.unverifiedHits--;
      const whole = await this.encodeText(text, false);
      if (!sameIds(whole, ids)) {
        this.prefixCache = null;
        this.opts.warn?.('Tokenizer prefix cache turned off: this tokenizer does not encode a prompt cut at a special token as the whole');
        return whole;
      }
    }
    cache.storeSoon(text, cuts, ids);
    return ids;
  }

  tokenToId(token: string): number | null {
    return this.native.tokenToId(token);
  }

  /** The vocabulary entry of `id` as the tokenizer spells it (`Ġhello` for byte-level BPE); null for an id it lacks. */
  idToToken(id: number): string | null {
    return this.native.idToToken(id);
  }

  decode(ids: number[], skipSpecialTokens: boolean): Promise<string> {
    return this.native.decode(ids, skipSpecialTokens);
  }

  private async encodeOne(text: string, addSpecialTokens: boolean): Promise<number[]> {
    const encoding = await this.native.encode(text, null, { addSpecialTokens });
    return encoding.getIds();
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    for (const flag of [0, 1] as const) {
      const batch = this.pending[flag];
      if (batch.length === 0) continue;
      this.pending[flag] = [];
      void this.encodeBatch(batch, flag === 1);
    }
  };

  private async encodeBatch(batch: PendingEncode[], addSpecialTokens: boolean): Promise<void> {
    if (batch.length === 1) {
      const only = batch[0]!;
      await this.encodeOne(only.text, addSpecialTokens).then(only.resolve, only.reject);
      return;
    }
    let encodings;
    try {
      encodings = await this.native.encodeBatch(
        batch.map((p) => p.text),
        { addSpecialTokens },
      );
    } catch {
      // One text's failure must not fail the others: retry each alone for its own result.
      for (const p of batch) void this.encodeOne(p.text, addSpecialTokens).then(p.resolve, p.reject);
      return;
    }
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(encodings[i]!.getIds());
  }
}

/**
 * A cached leading part's ids followed by the rest's, in an array sized once and filled by index:
 * copying a typed array through its iterator (Array.from) and growing by push cost more than the
 * rest of a hit (~35 µs and ~100 KB for 1.3k ids).
 */
function joined(cached: Uint32Array, rest: readonly number[]): number[] {
  const ids = new Array<number>(cached.length + rest.length);
  for (let i = 0; i < cached.length; i++) ids[i] = cached[i]!;
  for (let i = 0; i < rest.length; i++) ids[cached.length + i] = rest[i]!;
  return ids;
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
