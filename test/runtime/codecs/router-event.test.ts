import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KvIndexer } from '../../../src/router/kv/index.js';
import {
  decodeNatsEnvelope,
  decodeRouterEvent,
  encodeNatsEnvelope,
  encodeRouterEvent,
  parseJsonLossless,
} from '../../../src/runtime/index.js';

const STORED = `{"worker_id":7587888160958628000,"storage_tier":"device","event":{"event_id":18446744073709551,
 "data":{"stored":{"parent_hash":null,"start_position":0,"blocks":[
   {"block_hash":18446744073709551615,"tokens_hash":13226331709069118873,"mm_extra_info":null},
   {"block_hash":9007199254740993,"tokens_hash":12,"mm_extra_info":null}]}},"dp_rank":2}}`;

test('RouterEvent JSON keeps every u64 exact', () => {
  const e = decodeRouterEvent(STORED);
  assert.equal(e.worker_id, 7587888160958628000n);
  assert.equal(e.event.dp_rank, 2);
  assert.ok(typeof e.event.data === 'object' && 'stored' in e.event.data);
  const blocks = e.event.data.stored.blocks;
  assert.equal(blocks[0]!.block_hash, 18446744073709551615n);
  assert.equal(blocks[0]!.tokens_hash, 13226331709069118873n);
  assert.equal(blocks[1]!.block_hash, 9007199254740993n, '2^53+1 would round through JSON.parse');
  assert.equal(blocks[1]!.tokens_hash, 12n);
});

test('removed and cleared decode; dp_rank defaults to 0; bad shapes fail with a message', () => {
  const r = decodeRouterEvent('{"worker_id":1,"event":{"event_id":3,"data":{"removed":{"block_hashes":[18446744073709551615,5]}}}}');
  assert.deepEqual(r.event, { event_id: 3, dp_rank: 0, data: { removed: { block_hashes: [18446744073709551615n, 5n] } } });
  assert.equal(decodeRouterEvent('{"worker_id":1,"event":{"event_id":4,"data":"cleared","dp_rank":0}}').event.data, 'cleared');
  assert.throws(() => decodeRouterEvent('{"worker_id":-1,"event":{}}'), /invalid KV event: worker_id must be a u64/);
  assert.throws(() => decodeRouterEvent('{"worker_id":1,"event":{"event_id":1,"data":{"moved":{}}}}'), /stored, removed or "cleared"/);
  assert.throws(() => decodeRouterEvent('{"worker_id":1'), /invalid KV event/);
});

test('encode writes bare u64 numbers and round-trips', () => {
  const e = decodeRouterEvent(STORED);
  const text = encodeRouterEvent(e);
  assert.match(text, /"block_hash":18446744073709551615,/);
  assert.deepEqual(decodeRouterEvent(text), e);
});

test('decoded events feed the indexer', () => {
  const ix = new KvIndexer();
  assert.equal(ix.applyRouterEvent(decodeRouterEvent(STORED)), 0);
  assert.deepEqual(ix.findMatches([13226331709069118873n, 12n]).map((m) => [m.workerId, m.dpRank, m.blocks]), [[7587888160958628000n, 2, 2]]);
});

test('NatsEnvelope round trip (upstream pinned values)', () => {
  const env = { publisherId: 12345n, sequence: 42n, publishedAtMs: 1700000000000, payload: new TextEncoder().encode('test event data') };
  const text = encodeNatsEnvelope(env);
  assert.deepEqual(parseJsonLossless(text), {
    publisher_id: 12345, sequence: 42, published_at: 1700000000000, payload: [...env.payload],
  });
  assert.deepEqual(decodeNatsEnvelope(text), env);
});

test('exact JSON parser handles strings, escapes, floats and nesting', () => {
  assert.deepEqual(parseJsonLossless(' {"a":[1,-2.5e3,"x\\"y\\u0041",true,false,null,{}],"b":[]} '), {
    a: [1, -2500, 'x"yA', true, false, null, {}], b: [],
  });
  assert.equal(parseJsonLossless('-9223372036854775808'), -9223372036854775808n);
  assert.throws(() => parseJsonLossless('[1,]'), SyntaxError);
});
