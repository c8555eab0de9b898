// The KV router snapshot: a tree dumped and loaded into a fresh policy answers every query the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KvCacheEvent } from '../../../src/protocols/index.js';
import { decodeKvSnapshot, encodeKvSnapshot, KvIndexer } from '../../../src/router/kv/index.js';
import { KvRouterPolicy, RouterSnapshots, type LockRelease, type RouterStateStore } from '../../../src/router/index.js';

// Hashes above 2^63 check that u64 values survive exactly.
const BIG = 0xf000_0000_0000_0000n;
const local = (i: number) => BIG + BigInt(i);
const seq = (path: number[]) => BIG + BigInt(path.reduce((a, h) => a * 1000 + h, 7));

function stored(path: number[], blocks: number[], dpRank = 0): KvCacheEvent {
  const out = [];
  const cur = [...path];
  for (const b of blocks) {
    cur.push(b);
    out.push({ block_hash: seq(cur), tokens_hash: local(b), mm_extra_info: null });
  }
  return { event_id: 0, dp_rank: dpRank, data: { stored: { parent_hash: path.length ? seq(path) : null, blocks: out } } };
}
const removed = (path: number[]): KvCacheEvent => ({ event_id: 0, dp_rank: 0, data: { removed: { block_hashes: [seq(path)] } } });

const W1 = 0xffff_ffff_ffff_fff1n;
const W2 = 2n;
const W3 = 3n;

/** Three workers, shared prefixes, branches, a removed leaf, a cleared worker, dp rank 1, a host tier. */
function populate(policy: KvRouterPolicy): void {
  policy.applyKvEvent(W1, stored([], [1, 2, 3, 4, 5]));
  policy.applyKvEvent(W1, stored([1, 2], [30, 31]));
  policy.applyKvEvent(W2, stored([], [1, 2, 3]));
  policy.applyKvEvent(W2, stored([1, 2, 3], [40, 41, 42]));
  policy.applyKvEvent(W2, removed([1, 2, 3, 40, 41, 42]));
  policy.applyKvEvent(W3, stored([], [9, 8]));
  policy.applyKvEvent(W3, { event_id: 0, dp_rank: 0, data: 'cleared' });
  policy.applyKvEvent(W3, stored([], [1, 2]));
  policy.applyKvEvent(W3, stored([], [1, 2, 3, 4], 1));
  policy.applyKvEvent(W1, stored([], [1, 2, 3, 4, 5, 6, 7]), 'host_pinned');
}

const QUERIES = [[1, 2, 3, 4, 5, 6], [1, 2, 30, 31], [1, 2, 3, 40, 41, 42], [9, 8], [1], [1, 2, 3, 4, 5, 6, 7], [5]];

function answers(ix: KvIndexer): string[] {
  return QUERIES.map((q) =>
    ix
      .findMatches(q.map(local))
      .map((m) => `${m.workerId}/${m.dpRank}:${m.blocks}:${m.treeSize}`)
      .sort()
      .join(' '),
  );
}

/** The dumped blocks as a sorted list, ignoring dump order. */
function blockSet(p: KvRouterPolicy): string[] {
  return decodeKvSnapshot(encodeKvSnapshot(p.dumpKvEvents().map((e) => ({ ...e, event: { ...e.event, event_id: 0 } }))))
    .map((e) => `${e.worker_id} ${e.storage_tier ?? 'device'} ${e.event.dp_rank} ${JSON.stringify(e.event.data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`)
    .sort();
}

test('find_matches answers are identical after a snapshot round trip', () => {
  const a = new KvRouterPolicy({ blockSize: 4 });
  populate(a);
  const events = decodeKvSnapshot(encodeKvSnapshot(a.dumpKvEvents()));
  const b = new KvRouterPolicy({ blockSize: 4 });
  b.restoreKvEvents(events);
  assert.deepEqual(answers(b.indexer), answers(a.indexer));
  assert.ok(answers(a.indexer)[0]!.includes(`${W1}/0:5`), 'W1 (u64 id above 2^63) matched 5 blocks');
  assert.equal(b.indexer.treeSize(W1), a.indexer.treeSize(W1));
  assert.equal(b.indexer.tree.currentSize, a.indexer.tree.currentSize);
  // The host tier travels with its storage_tier and lands in the host indexer, not the device one.
  assert.ok(events.some((e) => e.storage_tier === 'host_pinned' && e.worker_id === W1));
  assert.deepEqual(blockSet(b), blockSet(a), 'same blocks, parents and tiers (sibling order may differ)');
});

test('an empty snapshot and a damaged one', () => {
  assert.deepEqual(decodeKvSnapshot(encodeKvSnapshot([])), []);
  const text = encodeKvSnapshot(new KvRouterPolicy({ blockSize: 4 }).dumpKvEvents());
  assert.equal(text.toString(), '[]\n');
  const one = new KvRouterPolicy({ blockSize: 4 });
  one.applyKvEvent(W2, stored([], [1, 2]));
  const full = encodeKvSnapshot(one.dumpKvEvents());
  assert.deepEqual(JSON.parse(full.toString()).length, 2, 'the snapshot is one JSON array');
  assert.throws(() => decodeKvSnapshot(full.subarray(0, full.length - 3)), /truncated/);
  assert.throws(() => decodeKvSnapshot(Buffer.from('{}')), /not a snapshot/);
});

/** A store in memory with one lock table, as several routers would share. */
class MemoryStore implements RouterStateStore {
  data: Uint8Array | null = null;
  readonly held = new Set<string>();
  async load() {
    return this.data;
  }
  async save(d: Uint8Array) {
    this.data = d;
  }
  async reset() {
    const had = this.data !== null;
    this.data = null;
    return had ? ['snapshot'] : [];
  }
  async tryLock(name: string): Promise<LockRelease | null> {
    if (this.held.has(name)) return null;
    this.held.add(name);
    return async () => void this.held.delete(name);
  }
}

test('a snapshot every `threshold` applied events; a later router loads it, a resetting one wipes it', async () => {
  const store = new MemoryStore();
  const a = new KvRouterPolicy({ blockSize: 4 });
  const snapA = new RouterSnapshots(a, store, { threshold: 3 });
  assert.equal(await snapA.start(false), 0);
  a.applyKvEvent(W1, stored([], [1, 2]));
  snapA.eventApplied();
  a.applyKvEvent(W2, stored([], [1]));
  snapA.eventApplied();
  assert.equal(await snapA.settled(), false);
  assert.equal(store.data, null, 'below the threshold nothing is saved');
  a.applyKvEvent(W2, stored([1], [5]));
  snapA.eventApplied();
  assert.equal(await snapA.settled(), true);
  assert.equal(store.held.size, 0, 'the snapshot lock is released');

  const b = new KvRouterPolicy({ blockSize: 4 });
  assert.equal(await new RouterSnapshots(b, store, { threshold: 3 }).start(false), 4);
  assert.deepEqual(answers(b.indexer), answers(a.indexer));

  // Another router holding the lock: this one skips its snapshot.
  store.held.add('router-snapshot-lock');
  assert.equal(await snapA.snapshot(), false);
  store.held.clear();

  const c = new KvRouterPolicy({ blockSize: 4 });
  assert.equal(await new RouterSnapshots(c, store, { threshold: 3 }).start(true), 0);
  assert.equal(store.data, null);
  assert.equal(c.indexer.tree.currentSize, 0);
});
