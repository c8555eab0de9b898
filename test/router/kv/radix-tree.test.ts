// Upstream's pinned radix-tree sequences (reference/router.md §3.3).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouterEvent } from '../../../src/protocols/index.js';
import { KvIndexer } from '../../../src/router/kv/index.js';

let nextId = 0;
function store(w: bigint, hashes: number[], parent: number | null = null): RouterEvent {
  return {
    worker_id: w,
    event: {
      event_id: nextId++,
      dp_rank: 0,
      data: {
        stored: {
          parent_hash: parent === null ? null : BigInt(parent),
          blocks: hashes.map((h) => ({ tokens_hash: BigInt(h), block_hash: BigInt(h * 100), mm_extra_info: null })),
        },
      },
    },
  };
}
function remove(w: bigint, hashes: number[]): RouterEvent {
  return { worker_id: w, event: { event_id: nextId++, dp_rank: 0, data: { removed: { block_hashes: hashes.map((h) => BigInt(h * 100)) } } } };
}
function scores(ix: KvIndexer, query: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of ix.findMatches(query.map(BigInt))) out[`w${m.workerId}`] = m.blocks;
  return out;
}
function path(...hashes: number[]): Uint32Array {
  const p = new Uint32Array(hashes.length * 2);
  hashes.forEach((h, i) => (p[i * 2 + 1] = h));
  return p;
}

test('store, match, remove and re-store under a parent (test_radix_tree)', () => {
  const ix = new KvIndexer();
  const w0 = 0n;
  const w1 = 1n;
  assert.equal(ix.applyRouterEvent(store(w0, [1, 2, 3])), 0);
  assert.deepEqual(scores(ix, [1, 2, 3]), { w0: 3 });
  assert.equal(ix.treeSize(w0), 3);
  assert.equal(ix.tree.childCountAt(path()), 1);
  assert.equal(ix.tree.workersAt(path(1)), 1);

  ix.applyRouterEvent(store(w1, [1, 4, 5]));
  assert.deepEqual(scores(ix, [1, 2, 3]), { w0: 3, w1: 1 });
  assert.equal(ix.tree.workersAt(path(1)), 2);
  assert.equal(ix.tree.childCountAt(path(1)), 2);

  ix.applyRouterEvent(remove(w1, [5]));
  assert.equal(ix.treeSize(w0), 3);
  assert.equal(ix.treeSize(w1), 2);
  ix.applyRouterEvent(remove(w1, [4]));
  assert.equal(ix.treeSize(w1), 1);
  assert.equal(ix.tree.childCountAt(path(1)), 2, 'emptied nodes stay under their parent');
  assert.equal(ix.tree.workersAt(path(1, 4)), 0);
  assert.equal(ix.tree.childCountAt(path(1, 4)), 0, 'an emptied node drops its children');

  assert.equal(ix.applyRouterEvent(store(w1, [2, 6, 7], 100)), 0);
  assert.deepEqual(scores(ix, [1, 2, 3]), { w0: 3, w1: 2 });
  assert.equal(ix.treeSize(w1), 4);
  assert.equal(ix.tree.workersAt(path(1, 2)), 2);
  assert.equal(ix.tree.currentSize, 7);
});

test('event errors: unknown parent, unknown block, a block that is its own ancestor', () => {
  const ix = new KvIndexer();
  assert.equal(ix.applyRouterEvent(store(0n, [1], 12345)), 1, 'ParentBlockNotFound');
  assert.equal(ix.applyRouterEvent(remove(0n, [9])), 2, 'BlockNotFound');
  assert.equal(ix.applyRouterEvent(store(0n, [1])), 0);
  assert.equal(ix.applyRouterEvent(store(0n, [1, 2, 3], 100)), 3, 'InvalidBlockSequence');
  assert.deepEqual(Object.fromEntries(ix.errorCounts), { ParentBlockNotFound: 1, BlockNotFound: 1, InvalidBlockSequence: 1 });
});

test('a removal batch continues past a missing block', () => {
  const ix = new KvIndexer();
  ix.applyRouterEvent(store(0n, [1, 2]));
  assert.equal(ix.applyRouterEvent(remove(0n, [7, 2])), 2);
  assert.equal(ix.treeSize(0n), 1);
  assert.deepEqual(scores(ix, [1, 2]), { w0: 1 });
});

test('clear keeps the worker known with no blocks; removeWorker forgets it', () => {
  const ix = new KvIndexer();
  ix.applyRouterEvent(store(0n, [0, 1, 3]));
  ix.applyRouterEvent(store(1n, [0, 2, 3]));
  assert.deepEqual(scores(ix, [0]), { w0: 1, w1: 1 });
  ix.applyRouterEvent({ worker_id: 0n, event: { event_id: 9, dp_rank: 0, data: 'cleared' } });
  assert.equal(ix.tree.hasWorker(ix.slotOf(0n)), true);
  assert.equal(ix.treeSize(0n), 0);
  assert.deepEqual(scores(ix, [0, 2, 3]), { w1: 3 });
  ix.removeWorker(1n);
  assert.equal(ix.tree.hasWorker(ix.slotOf(1n)), false);
  assert.deepEqual(scores(ix, [0, 2, 3]), {});
});

test('scores are per (worker, dp_rank); early exit stops at a single worker', () => {
  const ix = new KvIndexer();
  const ev = store(5n, [1, 2, 3]);
  ev.event.dp_rank = 1;
  ix.applyRouterEvent(ev);
  ix.applyRouterEvent(store(5n, [1]));
  const m = ix.findMatches([1n, 2n, 3n]).map((o) => [o.dpRank, o.blocks]).sort();
  assert.deepEqual(m, [[0, 1], [1, 3]]);
  assert.deepEqual(ix.findMatches([1n, 2n, 3n], true).map((o) => [o.dpRank, o.blocks]).sort(), [[0, 1], [1, 2]]);
});

test('u64 hashes above 2^53 stay exact and distinct', () => {
  const ix = new KvIndexer();
  const big = 18446744073709551557n;
  ix.applyEvent(3n, { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: [{ block_hash: big, tokens_hash: big - 1n }] } } });
  assert.deepEqual(ix.findMatches([big - 1n]).map((o) => o.blocks), [1]);
  assert.deepEqual(ix.findMatches([big - 2n]), []);
  assert.equal(ix.applyEvent(3n, { event_id: 1, dp_rank: 0, data: { removed: { block_hashes: [big - (1n << 32n)] } } }), 2);
});

test('many workers (more than one bitset word) and the dump rebuilds the same tree', () => {
  const ix = new KvIndexer();
  for (let w = 0; w < 70; w++) ix.applyRouterEvent(store(BigInt(w), [1, 2, 10 + (w % 3)]));
  const m = ix.findMatches([1n, 2n, 10n]);
  assert.equal(m.length, 70);
  assert.equal(m.filter((o) => o.blocks === 3).length, 24);
  const copy = new KvIndexer();
  for (const e of ix.dumpEvents()) assert.equal(copy.applyRouterEvent(e), 0);
  const norm = (x: KvIndexer) => x.findMatches([1n, 2n, 11n]).map((o) => `${o.workerId}:${o.blocks}`).sort();
  assert.deepEqual(norm(copy), norm(ix));
  assert.equal(copy.tree.currentSize, ix.tree.currentSize);
});

test('churn: nodes are reclaimed and matches stay right', () => {
  const ix = new KvIndexer(64);
  for (let round = 0; round < 200; round++) {
    const suffix = [1000 + round * 3, 1001 + round * 3, 1002 + round * 3];
    ix.applyRouterEvent(store(0n, [1, 2]));
    ix.applyRouterEvent(store(0n, suffix, 200));
    assert.deepEqual(scores(ix, [1, 2, ...suffix]), { w0: 5 });
    ix.applyRouterEvent(remove(0n, suffix));
  }
  assert.equal(ix.tree.currentSize, 2);
  assert.deepEqual(scores(ix, [1, 2, 1000]), { w0: 2 });
});

test('the same local hash at the same depth under different parents stays distinct', () => {
  const ix = new KvIndexer();
  ix.applyRouterEvent(store(0n, [1, 5, 6]));
  ix.applyRouterEvent(store(1n, [2, 5, 7]));
  ix.applyRouterEvent(store(2n, [3, 5]));
  assert.deepEqual(scores(ix, [1, 5, 6]), { w0: 3 });
  assert.deepEqual(scores(ix, [2, 5, 6]), { w1: 2 });
  assert.deepEqual(scores(ix, [3, 5, 7]), { w2: 2 });
  assert.deepEqual(scores(ix, [4, 5]), {});
  ix.applyRouterEvent(remove(1n, [2, 5, 7]));
  ix.applyRouterEvent(remove(2n, [3, 5]));
  assert.deepEqual(scores(ix, [1, 5, 6]), { w0: 3 });
  assert.deepEqual(scores(ix, [2, 5]), {});
  ix.applyRouterEvent(remove(0n, [1, 5, 6]));
  ix.applyRouterEvent(store(1n, [2, 5]));
  assert.deepEqual(scores(ix, [2, 5, 6]), { w1: 2 });
});

test('a block a worker holds under two hashes outlives the first removal', () => {
  const ix = new KvIndexer(64);
  const blockAs = (local: number, hash: number, parent: number): RouterEvent => ({
    worker_id: 0n,
    event: {
      event_id: nextId++,
      dp_rank: 0,
      data: { stored: { parent_hash: BigInt(parent), blocks: [{ tokens_hash: BigInt(local), block_hash: BigInt(hash), mm_extra_info: null }] } },
    },
  });
  ix.applyRouterEvent(store(0n, [5]));
  ix.applyRouterEvent(blockAs(1, 10, 500));
  ix.applyRouterEvent(blockAs(1, 11, 500));
  assert.equal(ix.treeSize(0n), 3);
  ix.applyRouterEvent(remove(0n, [5]));
  ix.applyRouterEvent({ worker_id: 0n, event: { event_id: nextId++, dp_rank: 0, data: { removed: { block_hashes: [10n] } } } });
  // The node is still named by hash 11: a new block must not take its place.
  ix.applyRouterEvent(store(0n, [2]));
  ix.applyRouterEvent({ worker_id: 0n, event: { event_id: nextId++, dp_rank: 0, data: { removed: { block_hashes: [11n] } } } });
  assert.deepEqual(scores(ix, [2]), { w0: 1 });
  assert.equal(ix.treeSize(0n), 1);
});

test('the dump gives u64 hashes with the high bit set back exactly', () => {
  const ix = new KvIndexer();
  const big = 0xffff_fffe_8000_0001n;
  ix.applyEvent(1n, { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: [{ block_hash: big, tokens_hash: big - 7n }] } } });
  ix.applyEvent(1n, { event_id: 1, dp_rank: 0, data: { stored: { parent_hash: big, blocks: [{ block_hash: big + 1n, tokens_hash: 5n }] } } });
  const blocks = ix.dumpEvents().map((e) => (e.event.data !== 'cleared' && 'stored' in e.event.data ? e.event.data.stored : null));
  assert.deepEqual(
    blocks.map((b) => [b?.parent_hash, b?.blocks[0]!.block_hash, b?.blocks[0]!.tokens_hash]),
    [
      [null, big, big - 7n],
      [big, big + 1n, 5n],
    ],
  );
});
