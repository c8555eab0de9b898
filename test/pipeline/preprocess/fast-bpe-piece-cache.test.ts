// The encoder's piece cache is looked up by a range of the text being encoded: it must find a piece
// wherever it stands, never a longer or shorter neighbour or a piece sharing only a hash, and keep
// the pieces in use across generations while dropping the unused ones.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PieceCache } from '../../../src/pipeline/preprocess/fast-bpe/piece-cache.js';
import { loadFastBpe } from '../../../src/pipeline/preprocess/index.js';
import { GPT2_PRE_TOKENIZER, syntheticTokenizerJson } from './fast-bpe-synthetic.js';

describe('PieceCache', () => {
  it('finds a piece by its range in any text, and only that piece', () => {
    const cache = new PieceCache(16);
    cache.set(' fox', 7);
    cache.set(' foxes', [7, 8]);
    const text = 'the quick fox and the foxes';
    assert.equal(cache.get(text, 9, 13), 7);
    assert.deepEqual(cache.get(text, 21, 27), [7, 8]);
    assert.equal(cache.get(text, 21, 25), 7);
    assert.equal(cache.get(text, 9, 12), undefined);
    assert.equal(cache.get(text, 3, 9), undefined);
    assert.equal(cache.get(' fo', 0, 3), undefined);
    assert.equal(cache.size, 2);
  });

  it('tells apart many pieces in one table (probing past the slots of others)', () => {
    const cache = new PieceCache(4096);
    for (let i = 0; i < 4096; i++) cache.set(`p${i}`, i);
    const text = Array.from({ length: 4096 }, (_, i) => `p${i}`).join('');
    for (let i = 0, at = 0; i < 4096; i++) {
      const end = at + `p${i}`.length;
      assert.equal(cache.get(text, at, end), i);
      at = end;
    }
  });

  it('keeps pieces in use for two generations on, drops the unused ones', () => {
    const cache = new PieceCache(4);
    for (const p of ['a', 'b', 'c', 'd']) cache.set(p, p.charCodeAt(0));
    // A second generation: a..d are the old one now; 'a' is used and moves back to the young one.
    for (const p of ['e', 'f', 'g']) cache.set(p, p.charCodeAt(0));
    assert.equal(cache.get('a', 0, 1), 97);
    // A third: the old generation (b, c, d) goes; a, e, f, g are the old one now, h and i the young.
    for (const p of ['h', 'i']) cache.set(p, p.charCodeAt(0));
    for (const p of ['b', 'c', 'd']) assert.equal(cache.get(p, 0, 1), undefined, p);
    assert.equal(cache.size, 6);
    // Each found moves to the young generation (two more fit before it turns over).
    for (const p of ['a', 'g', 'h', 'i']) assert.equal(cache.get(p, 0, 1), p.charCodeAt(0), p);
  });
});

describe('the encoder with its piece cache', () => {
  it('answers a text the same from a cold and from a warm cache, and from a cache that turned over', () => {
    const load = loadFastBpe(syntheticTokenizerJson({ preTokenizer: GPT2_PRE_TOKENIZER, seed: 5 }));
    assert.ok(load.ok);
    const text = 'the quick brown fox jumps over the lazy dog, twice: the quick brown fox!';
    const cold = load.encoder.encode(text, false);
    assert.ok(cold);
    assert.deepEqual(load.encoder.encode(text, false), cold);
    const cached = load.encoder.cachedPieces;
    assert.ok(cached > 0);
    for (let i = 0; i < 140_000; i++) load.encoder.encode(`w${i.toString(36)}`, false);
    assert.deepEqual(load.encoder.encode(text, false), cold);
  });
});
