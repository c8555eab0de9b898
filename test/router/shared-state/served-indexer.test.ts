import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/router/kv/index.js';
import { KvRouterPolicy, ServedIndexer } from '../../../src/router/index.js';

test('approximate mode: another router\'s recorded decision shows up in queries; an event-fed indexer refuses records', () => {
  const served = new ServedIndexer();
  served.add('approx', new KvRouterPolicy({ blockSize: 4, useKvEvents: false }));
  served.add('events', new KvRouterPolicy({ blockSize: 4 }));
  const local = computeLocalBlockHashes([1, 2, 3, 4, 5, 6, 7, 8], 4);
  const seq = computeSequenceHashes(local);
  const worker = { worker_id: 2n ** 60n + 1n, dp_rank: 0 };
  assert.equal(served.record({ model_name: 'approx', worker, local_hashes: local, sequence_hashes: seq }), 'Recorded');
  assert.deepEqual(served.query({ model_name: 'approx', block_hashes: local }), {
    TieredScores: { device: { scores: [[worker, 2]], frequencies: [] }, lower_tier: [] },
  });
  assert.deepEqual(served.record({ model_name: 'events', worker, local_hashes: local, sequence_hashes: seq }), { Error: 'this indexer applies KV events; routing decisions are not recorded' });
  assert.deepEqual(served.record({ model_name: 'approx', worker, local_hashes: local, sequence_hashes: [] }).constructor, Object);
  assert.deepEqual(served.query({ block_hashes: [] }), { Error: 'model_name is required' });
  served.remove('approx');
  assert.deepEqual(served.query({ model_name: 'approx', block_hashes: local }), { Error: 'served indexer model approx is not registered' });
});
