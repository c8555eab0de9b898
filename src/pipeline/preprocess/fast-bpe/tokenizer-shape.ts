// What of a tokenizer.json the fast encoder reproduces exactly: byte-level BPE (the GPT-2, Llama 3,
// Qwen, DeepSeek-style family) with an NFC or no normalizer and a regex split. Each component is
// looked up by its `type` in a table of the shapes handled; anything else is a reason, not a guess.

import { convertOnigRegex } from './onig-regex.js';

/** The GPT-2 split the ByteLevel pre-tokenizer applies itself with `use_regex: true`. */
const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

export interface BpeShape {
  nfc: boolean;
  /** The pre-tokenizer's split (Isolated: the text between matches is a piece too). */
  split: RegExp;
  /** ByteLevel's add_prefix_space: a segment not starting with a space gets one. */
  addPrefixSpace: boolean;
  /** Added tokens, split out of the raw text first (content → id). */
  addedTokens: Map<string, number>;
  /** The post-processor adds no tokens, so addSpecialTokens changes nothing. */
  postProcessorAddsNothing: boolean;
  vocab: Record<string, number>;
  merges: readonly (string | readonly string[])[];
  /** A piece that is itself in the vocab is one token. */
  ignoreMerges: boolean;
}

type Json = Record<string, unknown>;
/** A value, or why the shape is not handled. */
type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const no = <T>(reason: string): Checked<T> => ({ ok: false, reason });

interface PreTokenizing {
  split: RegExp;
  addPrefixSpace: boolean;
}

const NORMALIZERS: Record<string, (n: Json) => Checked<boolean>> = {
  NFC: () => ok(true),
  Sequence: (n) => {
    const parts = (n.normalizers ?? []) as (Json | null)[];
    for (const part of parts) if (part?.type !== 'NFC') return no(`normalizer Sequence holding ${String(part?.type)}`);
    return ok(parts.length > 0);
  },
};

const PRE_TOKENIZERS: Record<string, (p: Json) => Checked<PreTokenizing>> = {
  ByteLevel: (p) => {
    if (p.use_regex === false) return no('ByteLevel pre-tokenizer without its regex and without a Split before it');
    const split = convertOnigRegex(GPT2_PATTERN);
    return split.ok ? ok({ split: split.regex, addPrefixSpace: p.add_prefix_space === true }) : no(split.reason);
  },
  Sequence: (p) => {
    const parts = (p.pretokenizers ?? []) as Json[];
    if (parts.length === 1 && parts[0]?.type === 'ByteLevel') return PRE_TOKENIZERS.ByteLevel!(parts[0]);
    if (parts.length !== 2 || parts[0]?.type !== 'Split' || parts[1]?.type !== 'ByteLevel') {
      return no(`pre-tokenizer Sequence [${parts.map((x) => String(x?.type)).join(', ')}] (handled: [Split, ByteLevel] or [ByteLevel])`);
    }
    const [split, byteLevel] = parts as [Json, Json];
    if (byteLevel.add_prefix_space !== false || byteLevel.use_regex !== false) return no('ByteLevel after a Split with add_prefix_space or use_regex');
    const pattern = (split.pattern ?? {}) as Json;
    if (typeof pattern.Regex !== 'string') return no('Split pattern that is not a Regex');
    if (split.behavior !== 'Isolated' || split.invert !== false) return no(`Split behavior ${String(split.behavior)}, invert ${String(split.invert)}`);
    const regex = convertOnigRegex(pattern.Regex);
    return regex.ok ? ok({ split: regex.regex, addPrefixSpace: false }) : no(regex.reason);
  },
};

/** Post-processors by whether they add tokens (those not listed add some, e.g. TemplateProcessing). */
const ADDS_NOTHING: Record<string, (p: Json) => boolean> = {
  ByteLevel: () => true,
  Sequence: (p) => ((p.processors ?? []) as Json[]).every((x) => ADDS_NOTHING[String(x?.type)]?.(x) ?? false),
};

/** The shape of a parsed tokenizer.json, or why the fast encoder cannot reproduce it. */
export function bpeShapeOf(json: Json): Checked<BpeShape> {
  if (json.truncation != null || json.padding != null) return no('truncation or padding set in tokenizer.json');
  const model = (json.model ?? {}) as Json;
  if (model.type !== 'BPE') return no(`model ${String(model.type)}`);
  if (model.dropout != null) return no('BPE dropout');
  if (model.byte_fallback === true) return no('byte_fallback');
  if (model.continuing_subword_prefix || model.end_of_word_suffix) return no('continuing_subword_prefix or end_of_word_suffix');
  if (typeof model.vocab !== 'object' || model.vocab === null || !Array.isArray(model.merges)) return no('BPE vocab or merges missing');

  const normalizer = json.normalizer as Json | null;
  const nfc = normalizer == null ? ok(false) : (NORMALIZERS[String(normalizer.type)]?.(normalizer) ?? no(`normalizer ${String(normalizer.type)}`));
  if (!nfc.ok) return nfc;

  const pre = json.pre_tokenizer as Json | null;
  const preTokenizing = pre == null ? no<PreTokenizing>('no pre-tokenizer') : (PRE_TOKENIZERS[String(pre.type)]?.(pre) ?? no<PreTokenizing>(`pre-tokenizer ${String(pre.type)}`));
  if (!preTokenizing.ok) return preTokenizing;

  const added = (json.added_tokens ?? []) as Json[];
  const addedTokens = new Map<string, number>();
  for (const t of added) {
    if (t.lstrip || t.rstrip || t.single_word) return no(`added token ${JSON.stringify(t.content)} with lstrip, rstrip or single_word`);
    if (typeof t.content === 'string' && t.content.length > 0) addedTokens.set(t.content, Number(t.id));
  }
  // Normalized added tokens are matched after the others, in the normalized text: one pass over
  // the raw text finds the same only with no normalizer and all of them alike (GPT-2's file).
  const normalized = added.filter((t) => t.normalized).length;
  if (normalized > 0 && (nfc.value || normalized < added.length)) return no('added tokens marked normalized, with a normalizer or beside unnormalized ones');
  const post = json.post_processor as Json | null;
  return ok({
    nfc: nfc.value,
    ...preTokenizing.value,
    addedTokens,
    postProcessorAddsNothing: post == null || (ADDS_NOTHING[String(post.type)]?.(post) ?? false),
    vocab: model.vocab as Record<string, number>,
    merges: model.merges as (string | string[])[],
    ignoreMerges: model.ignore_merges === true,
  });
}
