// What the fast BPE encoder refuses: tokenizer.json shapes it does not reproduce exactly, and
// regex constructs it does not convert, each with "unsupported: <reason>", never a throw.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { convertOnigRegex } from '../../../src/pipeline/preprocess/fast-bpe/onig-regex.js';
import { loadFastBpe } from '../../../src/pipeline/preprocess/index.js';
import { GPT2_PRE_TOKENIZER, LLAMA3_PRE_TOKENIZER, syntheticTokenizerJson } from './fast-bpe-synthetic.js';

type Json = Record<string, any>;

const base = (): Json => syntheticTokenizerJson({ preTokenizer: GPT2_PRE_TOKENIZER, seed: 1 });

function reasonOf(json: Json): string {
  const load = loadFastBpe(json);
  assert.equal(load.ok, false);
  return load.ok ? '' : load.reason;
}

describe('loadFastBpe', () => {
  it('loads the bundled Qwen3 tokenizer.json and the synthetic GPT-2 and Llama 3 shapes', () => {
    const qwen = JSON.parse(readFileSync(loadDefaultModelCard().tokenizerJsonPath, 'utf8')) as Json;
    assert.equal(loadFastBpe(qwen).ok, true);
    assert.equal(loadFastBpe(base()).ok, true);
    assert.equal(loadFastBpe(syntheticTokenizerJson({ preTokenizer: LLAMA3_PRE_TOKENIZER, seed: 1 })).ok, true);
  });

  it('reports each shape it does not handle as unsupported, with the reason', () => {
    const cases: [string, (j: Json) => void, RegExp][] = [
      ['Metaspace', (j) => (j.pre_tokenizer = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true }), /pre-tokenizer Metaspace/],
      ['byte_fallback', (j) => (j.model.byte_fallback = true), /byte_fallback/],
      ['WordPiece model', (j) => (j.model.type = 'WordPiece'), /model WordPiece/],
      ['dropout', (j) => (j.model.dropout = 0.1), /dropout/],
      ['subword prefix', (j) => (j.model.continuing_subword_prefix = '##'), /continuing_subword_prefix/],
      ['NFKC', (j) => (j.normalizer = { type: 'NFKC' }), /normalizer NFKC/],
      ['Sequence with Lowercase', (j) => (j.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Lowercase' }] }), /normalizer Sequence holding Lowercase/],
      ['no regex', (j) => (j.pre_tokenizer = { ...GPT2_PRE_TOKENIZER, use_regex: false }), /without its regex/],
      ['Split Removed', (j) => (j.pre_tokenizer = { ...LLAMA3_PRE_TOKENIZER, pretokenizers: [{ ...LLAMA3_PRE_TOKENIZER.pretokenizers[0], behavior: 'Removed' }, LLAMA3_PRE_TOKENIZER.pretokenizers[1]] }), /Split behavior Removed/],
      ['two Splits', (j) => (j.pre_tokenizer = { type: 'Sequence', pretokenizers: [LLAMA3_PRE_TOKENIZER.pretokenizers[0], ...LLAMA3_PRE_TOKENIZER.pretokenizers] }), /Sequence \[Split, Split, ByteLevel\]/],
      ['lstrip added token', (j) => (j.added_tokens = [{ id: 999999, content: '<mask>', lstrip: true, rstrip: false, single_word: false, normalized: false, special: true }]), /<mask>.*lstrip/],
      ['normalized added token with NFC', (j) => {
        j.normalizer = { type: 'NFC' };
        j.added_tokens = [{ id: Object.keys(j.model.vocab).length, content: '<x>', lstrip: false, rstrip: false, single_word: false, normalized: true, special: true }];
      }, /marked normalized, with a normalizer/],
      ['misnumbered added token', (j) => (j.added_tokens = [{ id: 5, content: '<x>', lstrip: false, rstrip: false, single_word: false, normalized: false, special: true }]), /"<x>" does not have the id/],
      ['truncation', (j) => (j.truncation = { max_length: 8, strategy: 'LongestFirst', stride: 0, direction: 'Right' }), /truncation/],
      ['merge out of vocab', (j) => j.model.merges.push(['q', 'zzz']), /names a token not in the vocab/],
    ];
    for (const [name, change, reason] of cases) {
      const json = base();
      change(json);
      const why = reasonOf(json);
      assert.match(why, /^unsupported: /, name);
      assert.match(why, reason, name);
    }
  });
});

describe('convertOnigRegex', () => {
  const convert = (pattern: string): RegExp => {
    const r = convertOnigRegex(pattern);
    assert.ok(r.ok, r.ok ? '' : r.reason);
    return r.regex;
  };

  it('reads \\s as Unicode White_Space (U+0085 in, U+FEFF out), inside and outside classes', () => {
    const space = convert('\\s+');
    assert.deepEqual('a\u0085\u00a0\u2028b\ufeffc'.match(space), ['\u0085\u00a0\u2028']);
    const notSpace = convert('[^\\s]+');
    assert.deepEqual('\u0085x\ufeff\u0085'.match(notSpace), ['x\ufeff']);
    assert.deepEqual('\u0085x\ufeff \u0085'.match(convert('\\S+')), ['x\ufeff']);
  });

  it('expands (?i:...) alternatives to case classes, with the letters that fold alike', () => {
    const re = convert("(?i:'s|'ll)");
    assert.deepEqual("'S 'ſ 'Ll 'lL 'x".match(re), ["'S", "'ſ", "'Ll", "'lL"]);
  });

  it('keeps \\p{L}, \\p{N}, counted repeats and lookaheads', () => {
    assert.deepEqual('12345 ab٣'.match(convert('\\p{N}{1,3}|\\p{L}+(?!\\S)')), ['123', '45', '٣']);
  });

  it('refuses what it does not convert', () => {
    for (const [pattern, why] of [
      ['a.b', /'\.'/],
      ['^a', /'\^'/],
      ['\\d+', /\\d is not converted/],
      ['\\w', /\\w is not converted/],
      ['(?>a)', /group \(\?>/],
      ['a++', /possessive/],
      ['[[:alpha:]]', /nested or POSIX/],
      ['[a&&b]', /intersection/],
      ['\\p{Han}', /general categories/],
      ['(?i:a+)', /alternatives of literal/],
      ["(?i:'ss|'t)", /"'ss" holds "ss", which one character folds to/],
      ['(?i:st)', /"st", which one character folds to/],
      ['(?i)abc', /group \(\?i\)/],
      ['a{,3}', /quantifier/],
      ['[^\\S]', /\\S inside a character class/],
      ['(a', /unbalanced/],
    ] as const) {
      const r = convertOnigRegex(pattern);
      assert.equal(r.ok, false, pattern);
      assert.match(r.ok ? '' : r.reason, why, pattern);
    }
  });
});
