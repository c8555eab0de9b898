// HfTokenizer with the fast BPE encoder: the same ids as the native core on every path (the
// prefix cache, special tokens a post-processor adds, texts too long or with too long pieces),
// its first texts checked against native, and a difference turning it off.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Tokenizer } from 'tokenizers';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { boundaryTokensOf, DEFAULT_FAST_BPE_MAX_CHARS, HfTokenizer, MAX_PIECE_CHARS, PrefixTokenCache } from '../../../src/pipeline/preprocess/index.js';
import { GPT2_PRE_TOKENIZER, LLAMA3_POST_PROCESSOR, LLAMA3_PRE_TOKENIZER, syntheticTokenizerJson, writeTokenizerJson } from './fast-bpe-synthetic.js';

const card = loadDefaultModelCard();
const nativeQwen = Tokenizer.fromFile(card.tokenizerJsonPath);
const dir = mkdtempSync(path.join(tmpdir(), 'fast-bpe-tokenizer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const nativeIds = async (native: Tokenizer, text: string, special: boolean): Promise<number[]> => (await native.encode(text, null, { addSpecialTokens: special })).getIds();

/** Shifts every id the fast encoder gives, so its answers differ from native. */
function corruptFastEncoder(tokenizer: HfTokenizer): void {
  const fast = tokenizer.fastEncoder!;
  const encode = fast.encode.bind(fast);
  fast.encode = (text, special) => encode(text, special)?.map((id) => id + 1) ?? null;
}

describe('HfTokenizer with the fast BPE encoder', () => {
  it('is on for the bundled Qwen3 tokenizer and gives the native ids, short, long and with added tokens', async () => {
    const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
    assert.equal(tokenizer.fastEncoderStatus, 'on');
    const texts = ['Hello, world!', "<|im_start|>user\nDON'T we'Ve<|im_end|>\n<think>\n</think>", 'x'.repeat(3), 'The quick brown fox. '.repeat(DEFAULT_FAST_BPE_MAX_CHARS / 10)];
    for (const special of [false, true]) {
      for (const text of texts) assert.deepEqual(await tokenizer.encode(text, special), await nativeIds(nativeQwen, text, special));
    }
  });

  it('checks its first texts against native: a difference turns it off with one warning and the native ids', async () => {
    const warnings: string[] = [];
    const tokenizer = new HfTokenizer(card.tokenizerJsonPath, { warn: (m) => warnings.push(m) });
    corruptFastEncoder(tokenizer);
    assert.deepEqual(await tokenizer.encode('Hello there', false), await nativeIds(nativeQwen, 'Hello there', false));
    assert.equal(tokenizer.fastEncoder, null);
    assert.match(tokenizer.fastEncoderStatus, /^off: /);
    assert.deepEqual(await tokenizer.encode('And again', false), await nativeIds(nativeQwen, 'And again', false));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /Fast BPE encoder turned off/);
  });

  it('answers alone once its first texts matched (no native call behind it)', async () => {
    const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
    for (let i = 0; i < 8; i++) await tokenizer.encode(`checked text ${i}`, false);
    corruptFastEncoder(tokenizer);
    const want = await nativeIds(nativeQwen, 'unchecked', false);
    assert.deepEqual(await tokenizer.encode('unchecked', false), want.map((id) => id + 1));
  });

  it('leaves texts with a piece longer than MAX_PIECE_CHARS to native (hostile runs of one letter)', async () => {
    const tokenizer = new HfTokenizer(card.tokenizerJsonPath, { fastBpeMaxChars: Infinity });
    const hostile = 'a'.repeat(100_000);
    assert.equal(tokenizer.fastEncoder!.encode(hostile, false), null);
    assert.equal(tokenizer.fastEncoder!.encode(`hi ${'b'.repeat(MAX_PIECE_CHARS + 1)}`, false), null);
    assert.notEqual(tokenizer.fastEncoder!.encode(`hi ${'b'.repeat(MAX_PIECE_CHARS - 1)}`, false), null);
    assert.deepEqual(await tokenizer.encode(hostile, false), await nativeIds(nativeQwen, hostile, false));
    assert.equal(tokenizer.fastEncoderStatus, 'on');
  });

  it('leaves a text needing too many uncached pieces to native; the pieces it merged stay cached', async () => {
    const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
    const fast = tokenizer.fastEncoder!;
    const words = Array.from({ length: 1000 }, (_, i) => `q${(i * 7919).toString(36)}z`).join(' ');
    assert.ok(words.length <= DEFAULT_FAST_BPE_MAX_CHARS);
    const before = fast.cachedPieces;
    assert.equal(fast.encode(words, false, 10), null);
    assert.equal(fast.cachedPieces, before + 10);
    assert.deepEqual(await tokenizer.encode(words, false), await nativeIds(nativeQwen, words, false));
    assert.deepEqual(fast.encode(words, false), await nativeIds(nativeQwen, words, false));
    assert.deepEqual(await tokenizer.encode(words, false), await nativeIds(nativeQwen, words, false));
  });

  it('keeps the prefix cache working on top of it', async () => {
    const json = { added_tokens: [{ id: 151644, content: '<|im_start|>', special: true }, { id: 151645, content: '<|im_end|>', special: true }] };
    const cache = new PrefixTokenCache(boundaryTokensOf(json), 1 << 20);
    const tokenizer = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    const system = `<|im_start|>system\n${'Be brief and kind. '.repeat(50)}<|im_end|>\n`;
    for (let i = 0; i < 12; i++) {
      const prompt = `${system}<|im_start|>user\nQuestion ${i}?<|im_end|>\n<|im_start|>assistant\n`;
      assert.deepEqual(await tokenizer.encode(prompt, false), await nativeIds(nativeQwen, prompt, false));
    }
    assert.ok(cache.hits >= 10);
    assert.ok(tokenizer.cache);
    assert.equal(tokenizer.fastEncoderStatus, 'on');
  });

  it('uses native for special tokens a post-processor adds (Llama 3 BOS) and for unsupported shapes', async () => {
    const llama = writeTokenizerJson(dir, 'llama3', syntheticTokenizerJson({ preTokenizer: LLAMA3_PRE_TOKENIZER, postProcessor: LLAMA3_POST_PROCESSOR, addedTokens: ['<|begin_of_text|>'], seed: 2 }));
    const tokenizer = new HfTokenizer(llama);
    assert.equal(tokenizer.fastEncoderStatus, 'on');
    const native = Tokenizer.fromFile(llama);
    for (const special of [true, false]) assert.deepEqual(await tokenizer.encode('hello world', special), await nativeIds(native, 'hello world', special));
    assert.equal((await tokenizer.encode('hello', true))[0], (await nativeIds(native, '', true))[0]);

    const metaspace = syntheticTokenizerJson({ preTokenizer: GPT2_PRE_TOKENIZER, seed: 2 });
    metaspace.pre_tokenizer = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true };
    const file = writeTokenizerJson(dir, 'metaspace', metaspace);
    const unsupported = new HfTokenizer(file);
    assert.match(unsupported.fastEncoderStatus, /^unsupported: pre-tokenizer Metaspace/);
    assert.equal(unsupported.fastEncoder, null);
    assert.deepEqual(await unsupported.encode('hello world', false), await nativeIds(Tokenizer.fromFile(file), 'hello world', false));
  });

  it('is not built with fastBpeMaxChars 0', () => {
    const tokenizer = new HfTokenizer(card.tokenizerJsonPath, { fastBpeMaxChars: 0 });
    assert.equal(tokenizer.fastEncoder, null);
    assert.equal(tokenizer.fastEncoderStatus, 'off');
  });
});
