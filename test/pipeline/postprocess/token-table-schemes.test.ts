// SentencePiece-style (Replace/Metaspace + ByteFallback + Strip) and WordPiece tables built from
// hand-written tokenizer.json files, checked against the native tokenizer on the same files.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Tokenizer } from 'tokenizers';
import { IncrementalDecoder, TokenTable } from '../../../src/pipeline/postprocess/index.js';
import { addedToken } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'postprocess-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function both(name: string, json: Record<string, unknown>): { table: TokenTable; native: Tokenizer } {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ version: '1.0', truncation: null, padding: null, normalizer: null, pre_tokenizer: null, post_processor: null, ...json }));
  return { table: TokenTable.fromFile(file), native: Tokenizer.fromFile(file) };
}

const sentencePieceVocab = {
  '<unk>': 0, '<s>': 1, '</s>': 2, '<0x20>': 3, '<0xE2>': 4, '<0x82>': 5, '<0xAC>': 6,
  '▁Hello': 7, '▁world': 8, '▁▁': 9, 'x': 10, '▁': 11, 'a▁b': 12,
};
const bpe = (vocab: Record<string, number>) => ({
  type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
  fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges: [],
});
const specials = [addedToken(0, '<unk>', true), addedToken(1, '<s>', true), addedToken(2, '</s>', true)];

const llama = both('llama2', {
  added_tokens: specials,
  decoder: {
    type: 'Sequence',
    decoders: [
      { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
      { type: 'ByteFallback' },
      { type: 'Fuse' },
      { type: 'Strip', content: ' ', start: 1, stop: 0 },
    ],
  },
  model: bpe(sentencePieceVocab),
});

const metaspace = both('metaspace', {
  added_tokens: specials,
  decoder: {
    type: 'Sequence',
    decoders: [{ type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false }, { type: 'ByteFallback' }],
  },
  model: bpe(sentencePieceVocab),
});

const wordPiece = both('wordpiece', {
  added_tokens: [addedToken(0, '[CLS]', true), addedToken(1, '[SEP]', true)],
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: {
    type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
    vocab: { '[CLS]': 0, '[SEP]': 1, hello: 2, '##lo': 3, '.': 4, '##x': 5, "n't": 6, '[UNK]': 7, world: 8 },
  },
});

const SENTENCEPIECE_CASES = [
  [1, 7, 8, 2], [7, 8], [9, 7], [11, 7], [3, 7], [4, 5, 6], [7, 4, 5, 6, 8], [10, 9], [12, 7], [1, 9, 7], [2, 7],
];

for (const [name, pair] of [['Replace+ByteFallback+Strip (Llama-2)', llama], ['Metaspace prepend_scheme=first', metaspace]] as const) {
  for (const skip of [false, true]) {
    test(`${name}: whole-sequence decode agrees with the native tokenizer (skip=${skip})`, async () => {
      for (const ids of SENTENCEPIECE_CASES) {
        assert.equal(pair.table.decode(ids, skip), await pair.native.decode(ids, skip), JSON.stringify(ids));
      }
    });
  }
}

test('the TinyLlama check: id 1 is "<s>" with skip_special=false and nothing with true', async () => {
  assert.equal(llama.table.decode([1], false), '<s>');
  assert.equal(llama.table.decode([1], true), '');
  assert.equal(await llama.native.decode([1], false), '<s>');
  assert.deepEqual([...llama.table.specialIds].sort(), [0, 1, 2]);
});

test('generated text keeps the leading space of its first token (it continues the prompt)', () => {
  for (const table of [llama.table, metaspace.table]) {
    const d = new IncrementalDecoder(table, true);
    assert.equal(d.push(7) + d.push(8), ' Hello world');
  }
});

test('ByteFallback tokens decode as raw bytes, and a character split over them comes out once', () => {
  const d = new IncrementalDecoder(llama.table, true);
  assert.deepEqual([4, 5, 6, 10].map((id) => d.push(id)), ['', '', '€', 'x']);
});

test('a byte token is not a byte without a ByteFallback decoder', async () => {
  const plain = both('metaspace-only', {
    added_tokens: specials,
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
    model: bpe(sentencePieceVocab),
  });
  for (const ids of [[4, 5], [7, 4]]) assert.equal(plain.table.decode(ids, true), await plain.native.decode(ids, true));
});

for (const skip of [false, true]) {
  test(`WordPiece: whole-sequence decode agrees with the native tokenizer (skip=${skip})`, async () => {
    for (const ids of [[0, 2, 3, 4, 1], [5, 2], [2, 6], [2, 8, 4], [0, 5, 1], [8, 3, 5]]) {
      assert.equal(wordPiece.table.decode(ids, skip), await wordPiece.native.decode(ids, skip), JSON.stringify(ids));
    }
  });
}

test('an unsupported decoder is refused when the table is built', () => {
  assert.throws(() => TokenTable.fromJson({ decoder: { type: 'CTC' }, model: { vocab: { a: 0 } } }), /unsupported tokenizer decoder: CTC/);
});
