import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActiveSequences, TtlPruner } from '../../../src/router/kv/index.js';

test('blocks are ref-counted across requests; prefill tokens end at the first token; free derefs', () => {
  const s = new ActiveSequences({ blockSize: 4 });
  s.addRequest({ requestId: 'r1', worker: 1n, seqHashes: [1n, 2n], isl: 9, overlapBlocks: 0 });
  s.addRequest({ requestId: 'r2', worker: 1n, seqHashes: [1n, 2n, 3n], isl: 12, overlapBlocks: 2 });
  assert.equal(s.activeBlocks(1n), 3);
  assert.equal(s.activePrefillTokens(1n), 9 + 4);
  assert.equal(s.activeRequests(1n), 2);
  assert.equal(s.newBlocks(1n, [1, 2, 3, 4]), 1);
  assert.equal(s.newBlocks(2n, [1, 2]), 2);
  assert.equal(s.addRequest({ requestId: 'r1', worker: 1n, seqHashes: [9n], isl: 4, overlapBlocks: 0 }), false, 'duplicate ignored');
  s.markPrefillCompleted('r1');
  assert.equal(s.activePrefillTokens(1n), 4);
  s.free('r1');
  assert.equal(s.activeBlocks(1n), 3, 'r2 still holds 1, 2, 3');
  s.free('r2');
  assert.equal(s.activeBlocks(1n), 0);
  assert.equal(s.activePrefillTokens(1n), 0);
  assert.equal(s.activeRequests(1n), 0);
});

test('without KV reuse every request counts its own blocks', () => {
  const s = new ActiveSequences({ blockSize: 4, assumeKvReuse: false });
  s.addRequest({ requestId: 'a', worker: 1n, seqHashes: [1n, 2n], isl: 8, overlapBlocks: 0 });
  s.addRequest({ requestId: 'b', worker: 1n, seqHashes: [1n, 2n], isl: 8, overlapBlocks: 0 });
  assert.equal(s.activeBlocks(1n), 4);
  assert.equal(s.newBlocks(1n, [1, 2]), 2);
});

test('output blocks grow per block boundary and decay with the OSL hint', () => {
  const s = new ActiveSequences({ blockSize: 4, trackOutputBlocks: true });
  s.addRequest({ requestId: 'a', worker: 1n, seqHashes: [1n], isl: 4, overlapBlocks: 0, expectedOutputTokens: 8 });
  s.onTokensGenerated('a', 4);
  assert.equal(s.activeBlocks(1n), Math.round(1 + 1 * 0.5), 'one output block at weight 1 - 4/8, rounded');
  s.onTokensGenerated('a', 8);
  assert.equal(s.activeBlocks(1n), 1, 'two output blocks at weight 0');
  s.free('a');
  assert.equal(s.activeBlocks(1n), 0);
});

test('stale requests are force-freed after an hour, checked at most every 30 s', () => {
  let now = 0;
  const s = new ActiveSequences({ blockSize: 4, now: () => now });
  s.addRequest({ requestId: 'old', worker: 1n, seqHashes: [1n], isl: 4, overlapBlocks: 0 });
  now = 3601_000;
  s.addRequest({ requestId: 'new', worker: 1n, seqHashes: [2n], isl: 4, overlapBlocks: 0 });
  assert.equal(s.has('old'), false);
  assert.equal(s.activeRequests(1n), 1);
});

test('TTL pruner: expiry after the TTL, refresh extends it (upstream 50 ms case)', () => {
  let now = 0;
  const p = new TtlPruner(50, undefined, undefined, () => now);
  p.record(1n, [1n, 2n, 3n]);
  now = 25;
  p.record(1n, [1n, 2n, 3n]);
  now = 55;
  assert.deepEqual(p.popExpired(), []);
  now = 76;
  assert.equal(p.popExpired().length, 3);
  assert.equal(p.size, 0);
});

test('TTL pruner: over the size cap, oldest and deepest go first down to the target ratio', () => {
  let now = 0;
  const p = new TtlPruner(1000, 4, 0.5, () => now);
  p.record(1n, [1n, 2n, 3n]);
  now = 1;
  p.record(2n, [7n, 8n]);
  const pruned = p.popExpired();
  assert.deepEqual(pruned.map((e) => e.hash), [3n, 2n, 1n]);
  assert.equal(p.size, 2);
  p.removeWorker(2n);
  assert.equal(p.size, 0);
});
