import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  XXH3_SEED,
  computeBlockHash,
  computeSaltSeed,
  computeLocalBlockHashes,
  computeEagleLocalBlockHashes,
  computeSequenceHashes,
} from '../../src/router/kv/index.js';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

test('compute_block_hash pinned vectors', () => {
  assert.equal(computeBlockHash(Buffer.from('test data')), 13226331709069118873n);
  assert.equal(computeBlockHash(new Uint8Array(0), XXH3_SEED), 15128690059815094969n);
});

test('salt seeds', () => {
  assert.equal(computeSaltSeed(), 1337n);
  assert.equal(computeSaltSeed({ loraName: '', cacheNamespace: '' }), 1337n);
  assert.equal(computeSaltSeed({ loraName: 'adapter-a' }), 8842669519798868182n);
  assert.equal(computeSaltSeed({ cacheNamespace: 'tenant-a' }), 1948188790972764086n);
  assert.equal(computeSaltSeed({ cacheNamespace: 'tenant-a', loraName: 'adapter-a' }), 10790858310771630931n);
  assert.notEqual(computeSaltSeed({ cacheNamespace: 'tenant-a' }), computeSaltSeed({ loraName: 'tenant-a' }));
});

test('block counts: partial tail is never hashed', () => {
  for (const b of [11, 32, 64]) {
    assert.equal(computeLocalBlockHashes(range(b), b).length, 1);
    assert.equal(computeLocalBlockHashes(range(b + 1), b).length, 1);
    assert.equal(computeLocalBlockHashes(range(2 * b + 1), b).length, 2);
  }
  assert.deepEqual(computeLocalBlockHashes(range(10), 0), []);
});

test('local and sequence hashes, no salt', () => {
  const local = computeLocalBlockHashes(range(8), 4);
  assert.deepEqual(local, [9143094415614847814n, 12124091508212882195n]);
  assert.deepEqual(computeSequenceHashes(local), [9143094415614847814n, 9510318385840434533n]);

  const l16 = computeLocalBlockHashes(range(64), 16);
  assert.deepEqual(l16, [15310707395893867146n, 15292316782987903195n, 5532946206955930018n, 14928757266181269122n]);
  assert.deepEqual(computeSequenceHashes(l16), [
    15310707395893867146n, 13769157705258532664n, 11879827756109914528n, 3888788807566526800n,
  ]);

  const l64 = computeLocalBlockHashes(range(130), 64);
  assert.deepEqual(l64, [3480597578098033343n, 3318286205056455972n]);
  assert.deepEqual(computeSequenceHashes(l64), [3480597578098033343n, 2575318956255022795n]);
});

test('local and sequence hashes with LoRA and namespace salts', () => {
  const lora = computeLocalBlockHashes(range(8), 4, computeSaltSeed({ loraName: 'adapter-a' }));
  assert.deepEqual(lora, [6665157333201000639n, 11721812545976571723n]);
  assert.deepEqual(computeSequenceHashes(lora), [6665157333201000639n, 13351519314849170528n]);

  const ns = computeLocalBlockHashes(range(8), 4, computeSaltSeed({ cacheNamespace: 'tenant-a' }));
  assert.deepEqual(ns, [17009624042690211646n, 10000672136415158886n]);
  assert.deepEqual(computeSequenceHashes(ns), [17009624042690211646n, 18279821067719767880n]);

  assert.deepEqual(computeLocalBlockHashes(range(8), 4, computeSaltSeed({ loraName: '' })), computeLocalBlockHashes(range(8), 4));
});

test('compute_seq_hash_for_block([11,22,33])', () => {
  assert.deepEqual(computeSequenceHashes([11n, 22n, 33n]), [11n, 750553365844651409n, 3257565445809651757n]);
});

test('incremental hashing from a later block equals the tail of a full pass', () => {
  const tokens = range(200).map((i) => i * 7919);
  const all = computeLocalBlockHashes(tokens, 16);
  assert.deepEqual(computeLocalBlockHashes(tokens, 16, XXH3_SEED, 5), all.slice(5));
  assert.deepEqual(computeLocalBlockHashes(tokens, 16, XXH3_SEED, 99), []);
});

test('eagle mode: overlapping windows of B+1 tokens', () => {
  const tokens = range(6);
  assert.equal(computeLocalBlockHashes(tokens, 2).length, 3);
  const eagle = computeEagleLocalBlockHashes(tokens, 2);
  assert.deepEqual(eagle, [11646242937812223497n, 9948816348502404300n]);
  assert.deepEqual(eagle, [
    computeLocalBlockHashes([0, 1, 2], 3)[0],
    computeLocalBlockHashes([2, 3, 4], 3)[0],
  ]);
});
