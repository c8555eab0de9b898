// HfTokenizer coalesces the encodes of one event-loop turn into batches; every caller must still
// get exactly what a lone encode of its own text gives.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Tokenizer } from 'tokenizers';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer } from '../../../src/pipeline/preprocess/index.js';

const card = loadDefaultModelCard();
const native = Tokenizer.fromFile(card.tokenizerJsonPath);
const alone = async (text: string, special: boolean) => (await native.encode(text, null, { addSpecialTokens: special })).getIds();

test('concurrent encodes (both special-token modes, NUL bytes, a long text) match lone encodes', async () => {
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  const long = 'The quick brown fox jumps over the lazy dog. '.repeat(400);
  const inputs: [string, boolean][] = [
    ['Hello world', true],
    ['<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n', false],
    ['héllo wörld 你好 🙂', true],
    ['with\0nul', false],
    ['', true],
    [long, true],
    ['Hello world', false],
  ];
  const got = await Promise.all(inputs.map(([text, special]) => tokenizer.encode(text, special)));
  const want = await Promise.all(inputs.map(([text, special]) => alone(text.replaceAll('\0', ''), special)));
  assert.deepEqual(got, want);
  assert.ok(got[1]!.length > 0);
});

test('encodes in later turns are batched anew', async () => {
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  const first = await Promise.all(['a b', 'c d'].map((t) => tokenizer.encode(t, true)));
  const second = await Promise.all(['a b', 'e f'].map((t) => tokenizer.encode(t, true)));
  assert.deepEqual(first[0], second[0]);
  assert.deepEqual(second[1], await alone('e f', true));
});
