// Small byte-level BPE tokenizer.json files built in the tests (GPT-2 and Llama 3 shapes), so
// the fast encoder is checked against the native one on shapes other than the bundled Qwen3.
// Merges are whole words' left-to-right chains plus common pairs, in a seeded shuffled order,
// so ranks compete as they do in trained tokenizers.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BYTE_CHARS } from '../../../src/pipeline/preprocess/fast-bpe/byte-level.js';
import { Rng } from '../../fuzz/hostile.js';

const MERGE_WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', 'hello', 'Hello', 'world', 'token', 'tokenizer', 'inter', 'national', 'ization', 'ing', 'tion', 'er', 'in', 'an', 'on', 're', 'st', "'s", "'t", "'re", "'ll", 'caf', 'café', 'naïve', '你好', '世界', '123', '2026', '...', '  ', '\n\n', '    ', 'return', 'function', 'const', '😀'];

export const GPT2_PRE_TOKENIZER = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };

export const LLAMA3_PRE_TOKENIZER = {
  type: 'Sequence',
  pretokenizers: [
    {
      type: 'Split',
      pattern: { Regex: "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+" },
      behavior: 'Isolated',
      invert: false,
    },
    { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
  ],
};

export const LLAMA3_POST_PROCESSOR = {
  type: 'Sequence',
  processors: [
    { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { '<|begin_of_text|>': { id: '<|begin_of_text|>', ids: [0], tokens: ['<|begin_of_text|>'] } },
    },
  ],
};

export interface SyntheticOptions {
  preTokenizer: unknown;
  normalizer?: unknown;
  postProcessor?: unknown;
  ignoreMerges?: boolean;
  addedTokens?: readonly string[];
  /** Added tokens also in the model vocab (GPT-2's <|endoftext|>), else numbered after it (Llama 3, Qwen). */
  addedInVocab?: boolean;
  /** Added tokens marked normalized (GPT-2's file). */
  normalizedAdded?: boolean;
  /** Tokens in the vocab that no merge reaches (whole only under ignore_merges). */
  unreachable?: readonly string[];
  seed: number;
}

const spell = (text: string): string => [...Buffer.from(text, 'utf8')].map((b) => BYTE_CHARS[b]).join('');

export function syntheticTokenizerJson(opts: SyntheticOptions): Record<string, unknown> {
  const rng = new Rng(opts.seed);
  const added = opts.addedTokens ?? [];
  const vocab: Record<string, number> = {};
  let next = 0;
  const token = (t: string): void => {
    if (!(t in vocab)) vocab[t] = next++;
  };
  for (const c of BYTE_CHARS) token(c);
  if (opts.addedInVocab) for (const t of added) token(t);
  const merges: [string, string][] = [];
  const seen = new Set<string>();
  const chain = (spelled: string): void => {
    const chars = [...spelled];
    let left = chars[0]!;
    for (const c of chars.slice(1)) {
      const key = `${left} ${c}`;
      if (!seen.has(key)) {
        seen.add(key);
        merges.push([left, c]);
      }
      left += c;
      token(left);
    }
  };
  for (const w of MERGE_WORDS) {
    chain(spell(w));
    chain(spell(` ${w}`));
  }
  for (let i = 0; i < 200; i++) chain(String.fromCharCode(97 + rng.int(26)) + String.fromCharCode(97 + rng.int(26)));
  for (let i = merges.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [merges[i], merges[j]] = [merges[j]!, merges[i]!];
  }
  for (const t of opts.unreachable ?? []) token(spell(t));
  const ids = added.map((t, i) => (opts.addedInVocab ? vocab[t]! : next + i));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added.map((content, i) => ({ id: ids[i], content, single_word: false, lstrip: false, rstrip: false, normalized: opts.normalizedAdded ?? false, special: true })),
    normalizer: opts.normalizer ?? null,
    pre_tokenizer: opts.preTokenizer,
    post_processor: opts.postProcessor ?? { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: opts.ignoreMerges ?? false,
      vocab,
      merges,
    },
  };
}

export function writeTokenizerJson(dir: string, name: string, json: unknown): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}
