// The JS token table must decode exactly like the native tokenizer (same Rust core as upstream).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer } from 'tokenizers';
import { IncrementalDecoder, TokenTable } from '../../../src/pipeline/postprocess/index.js';
import { qwen3Paths } from './support.js';

const paths = qwen3Paths();
const started = performance.now();
const table = TokenTable.fromFile(paths.tokenizer, paths.config);
const buildMs = performance.now() - started;
const native = Tokenizer.fromFile(paths.tokenizer);

const CORPUS = [
  'Hello, world! The quick brown fox jumps over the lazy dog.',
  '  leading and trailing spaces  \n\n\ttabs\r\nand CRLF',
  '中文测试：我们的模型可以理解汉字。日本語のテキストも。한국어 문장도.',
  'emoji 😀 🦊 👩‍👩‍👧‍👦 🇯🇵 ✊🏾 and a rare one 🫨',
  'combining marks: e\u0301 a\u0308 n\u0303 — Z\u0351\u0308a\u0337lgo',
  'العربية والعبرית עברית ไทย हिन्दी',
  '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nok\n</think>\n\nHello<|endoftext|>',
  'code: fn main() { println!("{}", 1 << 3); } // ∀x∈ℝ, x² ≥ 0',
  '\u0000\u0001 control \u007f bytes and U+FFFD \ufffd itself',
];

/** A small deterministic PRNG so random id sequences are the same on every run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

test('the Qwen3 table builds quickly and covers every id', (t) => {
  t.diagnostic(`Qwen3 TokenTable.fromFile (parse + build): ${buildMs.toFixed(0)} ms for ${table.vocabSize} ids`);
  assert.equal(table.vocabSize, 151669);
  assert.ok(table.specialIds.has(151643)); // <|endoftext|>
  assert.ok(!table.specialIds.has(151667)); // <think> is an added, non-special token
  assert.equal(new TextDecoder().decode(table.tokenBytes(151644)!), '<|im_start|>');
  assert.equal(table.tokenBytes(-1), null);
  assert.equal(table.tokenBytes(table.vocabSize), null);
});

for (const skip of [false, true]) {
  test(`whole-sequence decode agrees with the native tokenizer (skip_special_tokens=${skip})`, async () => {
    for (const text of CORPUS) {
      const ids = (await native.encode(text)).getIds();
      assert.equal(table.decode(ids, skip), await native.decode(ids, skip), JSON.stringify(text));
    }
  });

  test(`incremental decode agrees with the native tokenizer (skip_special_tokens=${skip})`, async () => {
    for (const text of CORPUS) {
      const ids = (await native.encode(text)).getIds();
      const d = new IncrementalDecoder(table, skip);
      let out = '';
      for (const id of ids) out += d.push(id);
      out += d.flush();
      assert.equal(out, await native.decode(ids, skip), JSON.stringify(text));
    }
  });

  test(`random id sequences, including invalid UTF-8, decode like the native tokenizer (skip=${skip})`, async () => {
    const rand = lcg(skip ? 7 : 11);
    let invalid = 0;
    for (let n = 0; n < 60; n++) {
      const ids = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * table.vocabSize));
      const expected = await native.decode(ids, skip);
      if (expected.includes('\ufffd')) invalid++;
      assert.equal(table.decode(ids, skip), expected, JSON.stringify(ids));
      const d = new IncrementalDecoder(table, skip);
      assert.equal(ids.map((id) => d.push(id)).join('') + d.flush(), expected, JSON.stringify(ids));
    }
    assert.ok(invalid > 0, 'the random sequences exercise invalid UTF-8');
  });
}
