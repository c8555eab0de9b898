// The fast BPE encoder gives the native `tokenizers` ids, text for text, on a generated corpus:
// the bundled Qwen3 tokenizer.json, and GPT-2 and Llama 3 shaped files built here.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Tokenizer } from 'tokenizers';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { loadFastBpe, type FastBpeEncoder } from '../../../src/pipeline/preprocess/index.js';
import { corpus } from './fast-bpe-corpus.js';
import { GPT2_PRE_TOKENIZER, LLAMA3_POST_PROCESSOR, LLAMA3_PRE_TOKENIZER, syntheticTokenizerJson, writeTokenizerJson, type SyntheticOptions } from './fast-bpe-synthetic.js';

const dir = mkdtempSync(path.join(tmpdir(), 'fast-bpe-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function fastOf(file: string): FastBpeEncoder {
  const load = loadFastBpe(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
  assert.ok(load.ok, load.ok ? '' : load.reason);
  return load.encoder;
}

/** Every text's fast ids equal the native ones; returns how many texts the fast encoder answered. */
async function assertSameAsNative(file: string, texts: readonly string[], addSpecialTokens: boolean): Promise<number> {
  const fast = fastOf(file);
  const native = Tokenizer.fromFile(file);
  let answered = 0;
  for (let start = 0; start < texts.length; start += 256) {
    const batch = texts.slice(start, start + 256);
    const want = (await native.encodeBatch(batch, { addSpecialTokens })).map((e) => e.getIds());
    batch.forEach((text, i) => {
      const got = fast.encode(text, addSpecialTokens);
      if (got === null) return;
      answered++;
      assert.deepEqual(got, want[i], `text ${start + i}: ${JSON.stringify(text)}`);
    });
  }
  return answered;
}

const QWEN_ADDED = ['<|im_start|>', '<|im_end|>', '<|endoftext|>', '<think>', '</think>', '<tool_call>', '</tool_call>', '<|fim_prefix|>'];

function synthetic(name: string, opts: SyntheticOptions): string {
  return writeTokenizerJson(dir, name, syntheticTokenizerJson(opts));
}

describe('fast BPE encoder vs native tokenizers', () => {
  const card = loadDefaultModelCard();

  it('Qwen3 (NFC, Split regex + ByteLevel, added tokens): 4000 generated texts, without and with special tokens', async () => {
    const texts = corpus(4000, 12, { addedTokens: QWEN_ADDED });
    assert.equal(await assertSameAsNative(card.tokenizerJsonPath, texts, false), texts.length);
    assert.equal(await assertSameAsNative(card.tokenizerJsonPath, texts.slice(0, 500), true), 500);
  });

  it('Qwen3: chat prompts rendered whole, and the same text cached warm', async () => {
    const prose = corpus(40, 5, { addedTokens: [] }).join(' ');
    const prompts = [
      `<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\n${prose}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`,
      `<|im_start|>user\nDON'T we'Ve I'M THEY'LL<|im_end|>\n`,
    ];
    assert.equal(await assertSameAsNative(card.tokenizerJsonPath, [...prompts, ...prompts], false), 4);
  });

  it('Qwen3: long prompts (thousands of ids), then a short one and a refused one after them', async () => {
    const long = (words: number): string => `<|im_start|>user\n${corpus(words, 7, { addedTokens: QWEN_ADDED }).join(' ')}<|im_end|>\n`;
    const texts = [long(300), long(3000), 'Say hello.', long(40), long(1000), 'x'];
    assert.equal(await assertSameAsNative(card.tokenizerJsonPath, texts, false), texts.length);
    const fast = fastOf(card.tokenizerJsonPath);
    // A text it gives up on (too many new pieces) leaves nothing behind for the next one.
    assert.equal(fast.encode(long(200), false, 0), null);
    assert.deepEqual(fast.encode('Say hello.', false), (await Tokenizer.fromFile(card.tokenizerJsonPath).encode('Say hello.', null, { addSpecialTokens: false })).getIds());
  });

  it('Qwen3: lone surrogates read as U+FFFD, as the native binding receives them', async () => {
    const texts = ['a\ud800b', '\udc00', 'x \ud83d', '\ud83d\ude00\ud83d', 'e\u0301\udfff<think>\ud800</think>'];
    assert.equal(await assertSameAsNative(card.tokenizerJsonPath, texts, false), texts.length);
    assert.deepEqual(fastOf(card.tokenizerJsonPath).encode('a\ud800b', false), fastOf(card.tokenizerJsonPath).encode('a\ufffdb', false));
  });

  it('GPT-2 shape (ByteLevel with its own regex, <|endoftext|> in the vocab and normalized), with and without add_prefix_space', async () => {
    const texts = corpus(1500, 7, { addedTokens: ['<|endoftext|>'] });
    for (const addPrefixSpace of [false, true]) {
      const file = synthetic(`gpt2-${addPrefixSpace}`, {
        preTokenizer: { ...GPT2_PRE_TOKENIZER, add_prefix_space: addPrefixSpace },
        addedTokens: ['<|endoftext|>'],
        addedInVocab: true,
        normalizedAdded: true,
        seed: 3,
      });
      assert.equal(await assertSameAsNative(file, texts, false), texts.length);
    }
  });

  it('GPT-2 shape with an NFC Sequence normalizer', async () => {
    const texts = corpus(800, 8, { addedTokens: [] });
    const file = synthetic('gpt2-nfc', { preTokenizer: GPT2_PRE_TOKENIZER, normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }] }, seed: 4 });
    assert.equal(await assertSameAsNative(file, texts, false), texts.length);
  });

  it('Split patterns that can match the empty string (each empty match is a split point)', async () => {
    const texts = corpus(300, 10, { addedTokens: [] });
    for (const [i, pattern] of ['\\p{L}*', '(?=x)|\\s+', 'a*?| ?\\p{L}+'].entries()) {
      const split = { ...LLAMA3_PRE_TOKENIZER.pretokenizers[0], pattern: { Regex: pattern } };
      const file = synthetic(`empty-${i}`, { preTokenizer: { type: 'Sequence', pretokenizers: [split, LLAMA3_PRE_TOKENIZER.pretokenizers[1]] }, seed: 6 });
      assert.equal(await assertSameAsNative(file, texts, false), texts.length, pattern);
    }
  });

  it('Llama 3 shape (\\p{N}{1,3}, ignore_merges, no normalizer); its post-processor adds BOS, so special-token encodes are left to native', async () => {
    const added = ['<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>'];
    const file = synthetic('llama3', {
      preTokenizer: LLAMA3_PRE_TOKENIZER,
      postProcessor: LLAMA3_POST_PROCESSOR,
      ignoreMerges: true,
      unreachable: ['quickly', ' jumps', 'ization', ' 你好世界'],
      addedTokens: added,
      seed: 5,
    });
    // Names of Object.prototype's members must not be found in the vocab object.
    const texts = [...corpus(1500, 9, { addedTokens: added }), 'quickly jumps', ' jumps ization 你好世界', 'constructor toString __proto__ hasOwnProperty'];
    assert.equal(await assertSameAsNative(file, texts, false), texts.length);
    assert.equal(fastOf(file).encode('hello', true), null);
  });
});
