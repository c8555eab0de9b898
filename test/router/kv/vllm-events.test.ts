import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encode } from '@msgpack/msgpack';
import { decodeVllmEventBatch, decodeVllmSequence, KvIndexer, vllmHashToU64 } from '../../../src/router/kv/index.js';

const packr = { pack: (v: unknown) => encode(v, { useBigInt64: true }) };
const TOKENS = [0, 1, 2, 3, 4, 5, 6, 7];
const LOCAL = [9143094415614847814n, 12124091508212882195n];
const LOCAL_LORA = [6665157333201000639n, 11721812545976571723n];
const opts = { blockSize: 4 };

test('legacy layout: array batch, array events; CPU medium kept as the host_pinned tier', () => {
  const payload = packr.pack([
    1700000000.5,
    [
      ['BlockStored', [-1, 2n ** 63n + 5n], null, TOKENS, 4, null, 'GPU'],
      ['BlockRemoved', [-1], 'GPU'],
      ['BlockStored', [10], null, TOKENS.slice(0, 4), 4, null, 'CPU'],
      ['AllBlocksCleared'],
    ],
    3,
  ]);
  const batch = decodeVllmEventBatch(payload, opts);
  assert.equal(batch.dpRank, 3);
  assert.equal(batch.ts, 1700000000.5);
  assert.deepEqual(batch.events.map((e) => e.data), [
    { stored: { parent_hash: null, blocks: [
      { block_hash: 18446744073709551615n, tokens_hash: LOCAL[0], mm_extra_info: null },
      { block_hash: 2n ** 63n + 5n, tokens_hash: LOCAL[1], mm_extra_info: null },
    ] } },
    { removed: { block_hashes: [18446744073709551615n] } },
    { stored: { parent_hash: null, blocks: [{ block_hash: 10n, tokens_hash: LOCAL[0], mm_extra_info: null }] } },
    'cleared',
  ]);
  assert.deepEqual(batch.tiers, ['device', 'device', 'host_pinned', 'device']);
  assert.ok(batch.events.every((e) => e.dp_rank === 3));
});

test('v0.28 layout: array batch, tagged-map events, lora salt, unknown keys ignored', () => {
  const payload = packr.pack([
    1.0,
    [{ type: 'BlockStored', block_hashes: [7, 8], parent_block_hash: 6, token_ids: TOKENS, block_size: 4, lora_name: 'adapter-a', medium: 'GPU', group_idx: 0, future_field: 1 }],
    null,
  ]);
  const batch = decodeVllmEventBatch(payload, opts);
  assert.equal(batch.dpRank, 0);
  assert.deepEqual(batch.events[0]!.data, { stored: { parent_hash: 6n, blocks: [
    { block_hash: 7n, tokens_hash: LOCAL_LORA[0], mm_extra_info: null },
    { block_hash: 8n, tokens_hash: LOCAL_LORA[1], mm_extra_info: null },
  ] } });
});

test('newest layout: map batch; bytes hashes fold to the trailing 8 bytes big-endian', () => {
  const digest = Buffer.alloc(32, 0xaa);
  digest.writeBigUInt64BE(0x0102030405060708n, 24);
  const payload = packr.pack({ ts: 2.0, events: [{ type: 'BlockStored', block_hashes: [digest], token_ids: TOKENS.slice(0, 4) }], data_parallel_rank: 1 });
  const batch = decodeVllmEventBatch(payload, opts);
  assert.equal(batch.dpRank, 1);
  assert.deepEqual(batch.events[0]!.data, { stored: { parent_hash: null, blocks: [{ block_hash: 0x0102030405060708n, tokens_hash: LOCAL[0], mm_extra_info: null }] } });
});

test('a store that repeats its parent or itself becomes an empty removal; block size must match', () => {
  const dup = packr.pack({ ts: 0, events: [{ type: 'BlockStored', block_hashes: [5, 5], token_ids: TOKENS }] });
  assert.deepEqual(decodeVllmEventBatch(dup, opts).events[0]!.data, { removed: { block_hashes: [] } });
  const parent = packr.pack({ ts: 0, events: [{ type: 'BlockStored', block_hashes: [5], parent_block_hash: 5, token_ids: TOKENS.slice(0, 4) }] });
  assert.deepEqual(decodeVllmEventBatch(parent, opts).events[0]!.data, { removed: { block_hashes: [] } });
  const size = packr.pack({ ts: 0, events: [{ type: 'BlockStored', block_hashes: [5], token_ids: TOKENS, block_size: 16 }] });
  assert.throws(() => decodeVllmEventBatch(size, opts), /block_size 16 differs from the router's kv block size 4/);
  assert.throws(() => decodeVllmEventBatch(Buffer.from([0xc1]), opts), /invalid vLLM KV event batch/);
});

test('eagle bigram tokens hash windows of B+1', () => {
  const pairs = [[0, 1], [1, 2], [2, 3], [3, 4]];
  const payload = packr.pack({ ts: 0, events: [{ type: 'BlockStored', block_hashes: [1, 2], token_ids: pairs }] });
  const data = decodeVllmEventBatch(payload, { blockSize: 2 }).events[0]!.data;
  assert.ok(typeof data === 'object' && 'stored' in data);
  assert.deepEqual(data.stored.blocks.map((b) => b.tokens_hash), [11646242937812223497n, 9948816348502404300n]);
});

test('hash conversions and the sequence frame', () => {
  assert.equal(vllmHashToU64(-2), 18446744073709551614n);
  assert.equal(vllmHashToU64(-(2n ** 63n)), 2n ** 63n);
  assert.equal(vllmHashToU64(Uint8Array.from([1, 0])), 256n);
  const seq = Buffer.alloc(8);
  seq.writeBigInt64BE(-1n);
  assert.equal(decodeVllmSequence(seq), -1n);
});

test('vLLM events flow into the indexer', () => {
  const ix = new KvIndexer();
  const payload = packr.pack({ ts: 0, events: [{ type: 'BlockStored', block_hashes: [-5, 6], token_ids: TOKENS }] });
  for (const e of decodeVllmEventBatch(payload, opts).events) assert.equal(ix.applyEvent(42n, e), 0);
  assert.deepEqual(ix.findMatches(LOCAL).map((m) => m.blocks), [2]);
});
