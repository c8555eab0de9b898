// Worker load reports: upstream ActiveLoad JSON on namespace.{ns}.kv_metrics, and the per-worker
// view busy detection reads from them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActiveLoad } from '../../../src/protocols/index.js';
import { WorkerLoads } from '../../../src/router/index.js';
import {
  decodeActiveLoad,
  encodeActiveLoad,
  LocalEventPlane,
  loadMetricsPublisher,
  loadMetricsSubject,
  subscribeLoadMetrics,
} from '../../../src/runtime/index.js';

const LOAD: ActiveLoad = { worker_id: 2252259416447694086n, dp_rank: 0, kv_used_blocks: 42, waiting_requests: 3 };

test('ActiveLoad JSON: upstream field names, the u64 worker id as a bare number, lossless round trip', () => {
  const text = encodeActiveLoad(LOAD);
  assert.equal(text, '{"worker_id":2252259416447694086,"dp_rank":0,"kv_used_blocks":42,"waiting_requests":3}');
  assert.deepEqual(decodeActiveLoad(text), LOAD);
  assert.deepEqual(
    decodeActiveLoad('{"worker_id":7,"dp_rank":1,"active_decode_blocks":5,"active_prefill_tokens":null,"kv_used_blocks":null}'),
    { worker_id: 7n, dp_rank: 1, active_decode_blocks: 5 },
    'null counts read as absent',
  );
  assert.deepEqual(decodeActiveLoad('{"worker_id":7}'), { worker_id: 7n, dp_rank: 0 });
  assert.throws(() => decodeActiveLoad('{"dp_rank":0}'), /worker_id must be a u64/);
  assert.throws(() => decodeActiveLoad('{"worker_id":1,"kv_used_blocks":-1}'), /kv_used_blocks must be a non-negative integer/);
  assert.throws(() => decodeActiveLoad('[1]'), /must be an object/);
  assert.throws(() => decodeActiveLoad('{"worker_id":'), /invalid ActiveLoad/);
});

test('publisher and subscriber meet on namespace.{ns}.kv_metrics; undecodable reports go aside', async () => {
  assert.equal(loadMetricsSubject('dynamo'), 'namespace.dynamo.kv_metrics');
  const plane = new LocalEventPlane(`load-${Date.now()}`);
  const got: ActiveLoad[] = [];
  const bad: Error[] = [];
  const stop = await subscribeLoadMetrics(plane, 'ns', (l) => got.push(l), (e) => bad.push(e));
  loadMetricsPublisher(plane, 'ns', LOAD.worker_id)({ dp_rank: 0, kv_used_blocks: 42, waiting_requests: 3 });
  loadMetricsPublisher(plane, 'other', 9n)({ dp_rank: 0, kv_used_blocks: 1 });
  plane.publish(loadMetricsSubject('ns'), 'not json');
  stop();
  loadMetricsPublisher(plane, 'ns', 9n)({ dp_rank: 0, kv_used_blocks: 1 });
  assert.deepEqual(got, [LOAD]);
  assert.equal(bad.length, 1);
  await plane.close();
});

test('in-process reports reach load subscribers as objects, checked as decoded ones are; byte subscribers still get the JSON', async () => {
  const plane = new LocalEventPlane(`load-values-${Date.now()}`);
  const got: ActiveLoad[] = [];
  const bad: Error[] = [];
  const texts: string[] = [];
  await subscribeLoadMetrics(plane, 'ns', (l) => got.push(l), (e) => bad.push(e));
  await plane.subscribe(loadMetricsSubject('ns'), (p) => texts.push(p.toString()));
  const publish = loadMetricsPublisher(plane, 'ns', LOAD.worker_id);
  publish({ dp_rank: 0, kv_used_blocks: 42, waiting_requests: 3, active_prefill_tokens: undefined });
  publish({ dp_rank: 0, kv_used_blocks: -1 });
  assert.deepEqual(got, [LOAD], 'only the known fields, undefined ones left out');
  assert.equal(bad.length, 1);
  assert.match(bad[0]!.message, /kv_used_blocks must be a non-negative integer/);
  assert.equal(texts[0], encodeActiveLoad(LOAD));
  await plane.close();
});

test('in-process event planes of different scopes do not see each other', async () => {
  // One stamp: two reads of the clock can fall in different milliseconds.
  const stamp = Date.now();
  const a = new LocalEventPlane(`scope-a-${stamp}`);
  const b = new LocalEventPlane(`scope-b-${stamp}`);
  const sameAsA = new LocalEventPlane(`scope-a-${stamp}`);
  const got: string[] = [];
  await a.subscribe('s', (p) => got.push(`a:${p.toString()}`));
  b.publish('s', 'from b');
  sameAsA.publish('s', 'from a');
  assert.deepEqual(got, ['a:from a']);
  await a.close();
});

test('WorkerLoads: capacity is the last report against the card totals, per worker, fullest rank', () => {
  const loads = new WorkerLoads();
  const capacity = loads.capacityOf(5n, { kvTotalBlocks: 100, maxNumBatchedTokens: 2048 });
  assert.deepEqual(capacity(), { kvUsedBlocks: 0, kvTotalBlocks: 100, maxNumBatchedTokens: 2048 }, 'no report yet: nothing in use');
  loads.apply({ worker_id: 5n, dp_rank: 0, kv_used_blocks: 30 });
  loads.apply({ worker_id: 5n, dp_rank: 1, active_decode_blocks: 60 });
  loads.apply({ worker_id: 6n, dp_rank: 0, kv_used_blocks: 99 });
  loads.apply({ worker_id: 5n, dp_rank: 0, waiting_requests: 4 });
  assert.equal(capacity().kvUsedBlocks, 60);
  loads.apply({ worker_id: 5n, dp_rank: 1, kv_used_blocks: 10 });
  assert.equal(capacity().kvUsedBlocks, 30);
  loads.forget(5n);
  assert.equal(capacity().kvUsedBlocks, 0);
  assert.deepEqual(loads.capacityOf(6n, {})(), { kvUsedBlocks: 99, kvTotalBlocks: 0, maxNumBatchedTokens: undefined }, 'no totals: busy checks stay off');
});
