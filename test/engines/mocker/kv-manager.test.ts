import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KvBlockManager, type BlockId } from '../../../src/engines/mocker/index.js';
import type { KvCacheEventData } from '../../../src/protocols/index.js';

const full = (...ids: number[]): bigint[] => ids.map((i) => BigInt(i));
const sorted = (blocks: bigint[]): bigint[] => [...blocks].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

function refs(kv: KvBlockManager, ids: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const id of ids) if (kv.refCount(BigInt(id)) > 0) out[id] = kv.refCount(BigInt(id));
  return out;
}

test('pinned KV manager sequence (capacity 10)', () => {
  const events: KvCacheEventData[] = [];
  const kv = new KvBlockManager(10, (e) => events.push(e));
  const use = (...ids: number[]): boolean => kv.use(full(...ids), full(...ids));
  const all = Array.from({ length: 13 }, (_, i) => i);

  assert.ok(use(0, 1, 2, 3, 4));
  assert.ok(use(0, 1, 5, 6));
  assert.deepEqual(refs(kv, all), { 0: 2, 1: 2, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1 });

  kv.destroy(full(4));
  kv.deref(full(0, 1, 2, 3));
  assert.deepEqual(sorted(kv.inactiveBlocks()), full(2, 3));
  assert.deepEqual(refs(kv, all), { 0: 1, 1: 1, 5: 1, 6: 1 });

  kv.destroy(full(6));
  kv.deref(full(0, 1, 5));
  assert.deepEqual(sorted(kv.inactiveBlocks()), full(0, 1, 2, 3, 5));
  assert.equal(kv.numActiveBlocks, 0);

  assert.ok(use(0, 1, 2, 7, 8, 9));
  assert.deepEqual(sorted(kv.inactiveBlocks()), full(3, 5));
  assert.equal(kv.probeNewBlocks(full(0, 1, 2, 3, 4)), 1);

  events.length = 0;
  assert.ok(use(10, 11, 12));
  assert.deepEqual(kv.inactiveBlocks(), full(5));
  // The third new block hit capacity and evicted 3, the least recently released.
  assert.deepEqual(events[0], { removed: { block_hashes: [3n] } });
  assert.deepEqual(events[1], {
    stored: {
      parent_hash: null,
      blocks: full(10, 11, 12).map((h) => ({ block_hash: h, tokens_hash: h, mm_extra_info: null })),
    },
  });
});

test('capacity: an 11th distinct block fails when nothing is evictable', () => {
  const kv = new KvBlockManager(10);
  for (let i = 0; i < 10; i++) assert.ok(kv.use([BigInt(i)], [BigInt(i)]));
  assert.equal(kv.use([10n], [10n]), false);
  assert.equal(kv.numActiveBlocks, 10);
  assert.equal(kv.refCount(10n), 0);
});

test('stored events name the parent and skip blocks already present', () => {
  const events: KvCacheEventData[] = [];
  const kv = new KvBlockManager(10, (e) => events.push(e));
  kv.use(full(1, 2), [101n, 102n]);
  kv.use(full(1, 2, 3), [101n, 102n, 103n]);
  assert.deepEqual(events, [
    {
      stored: {
        parent_hash: null,
        blocks: [
          { block_hash: 1n, tokens_hash: 101n, mm_extra_info: null },
          { block_hash: 2n, tokens_hash: 102n, mm_extra_info: null },
        ],
      },
    },
    { stored: { parent_hash: 2n, blocks: [{ block_hash: 3n, tokens_hash: 103n, mm_extra_info: null }] } },
  ]);
});

test('private blocks are freed on release, never announced, and promote to full blocks', () => {
  const events: KvCacheEventData[] = [];
  const kv = new KvBlockManager(4, (e) => events.push(e));
  const partial: BlockId[] = [7];
  assert.ok(kv.use(partial, []));
  assert.equal(events.length, 0);
  kv.promote(7, 50n, 49n, 500n);
  assert.equal(kv.refCount(7), 0);
  assert.equal(kv.refCount(50n), 1);
  assert.deepEqual(events, [
    { stored: { parent_hash: 49n, blocks: [{ block_hash: 50n, tokens_hash: 500n, mm_extra_info: null }] } },
  ]);
  // A second partial promoted to the same hash shares the block, with no new event.
  kv.use([8], []);
  kv.promote(8, 50n, 49n, 500n);
  assert.equal(kv.refCount(50n), 2);
  assert.equal(events.length, 1);
  kv.use([9], []);
  kv.deref([9]);
  assert.equal(kv.numActiveBlocks, 1);
  assert.equal(kv.numInactiveBlocks, 0);
  kv.destroy([50n]);
  assert.deepEqual(events[1], { removed: { block_hashes: [50n] } });
});

test('use is all-or-nothing under an active-block limit', () => {
  const kv = new KvBlockManager(10);
  assert.ok(kv.use(full(1, 2, 3), full(1, 2, 3)));
  assert.equal(kv.use(full(4, 5), full(4, 5), 3n, 4), false);
  assert.equal(kv.numActiveBlocks, 3);
  assert.ok(kv.use(full(4), full(4), 3n, 4));
});

test('eviction takes the least recently released block, through revivals and re-releases (random ops against a model)', () => {
  let seed = 99;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let run = 0; run < 20; run++) {
    const removed: bigint[] = [];
    const kv = new KvBlockManager(16, (e) => {
      if (typeof e === 'object' && 'removed' in e) removed.push(...e.removed.block_hashes);
    });
    // The model: reference counts, and released blocks in release order.
    const refs = new Map<bigint, number>();
    const lru: bigint[] = [];
    const expected: bigint[] = [];
    // Odd runs never fill the cache: released pairs pile up with no eviction to pass them.
    const pool = run % 2 === 0 ? 40 : 12;
    for (let op = 0; op < 6000; op++) {
      const block = BigInt(1 + rand(pool));
      if (rand(2) === 0) {
        const active = refs.size;
        const wasActive = refs.has(block);
        if (!wasActive && active >= 16) continue;
        const at = lru.indexOf(block);
        if (at >= 0) lru.splice(at, 1);
        else if (!wasActive && active + lru.length >= 16) expected.push(lru.shift()!);
        refs.set(block, (refs.get(block) ?? 0) + 1);
        assert.equal(kv.use([block], [block]), true);
      } else if (refs.has(block)) {
        const n = refs.get(block)! - 1;
        if (n === 0) {
          refs.delete(block);
          lru.push(block);
        } else refs.set(block, n);
        kv.deref([block]);
      }
    }
    assert.deepEqual(removed, expected, `run ${run}: evictions in release order`);
    assert.deepEqual(kv.inactiveBlocks(), lru, `run ${run}: cached blocks in release order`);
  }
});

test('announce: a router that missed every event rebuilds exactly the cache from the announcement', async () => {
  const { KvIndexer } = await import('../../../src/router/kv/index.js');
  let kv: KvBlockManager;
  const live = new KvIndexer();
  let sink = (data: KvCacheEventData): void => void live.applyEvent(7n, { event_id: 0, dp_rank: 0, data });
  kv = new KvBlockManager(12, (data) => sink(data));
  // Two sequences sharing a prefix, one branching, evictions and a destroyed block along the way.
  const seq = (...ids: number[]): void => {
    assert.ok(kv.use(full(...ids), full(...ids.map((i) => i + 1000)), null));
    kv.deref(full(...ids));
  };
  seq(1, 2, 3, 4);
  seq(1, 2, 5, 6);
  seq(1, 2, 5, 7);
  seq(20, 21, 22);
  seq(30, 31, 32, 33);
  kv.use(full(40), full(1040), null);
  kv.destroy(full(40));
  const reported = (ix: InstanceType<typeof KvIndexer>): string[] =>
    ix.dumpEvents().map((e) => JSON.stringify(e.event.data, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).sort();

  const missed = new KvIndexer();
  missed.applyEvent(7n, { event_id: 0, dp_rank: 0, data: { stored: { parent_hash: null, blocks: [{ block_hash: 999n, tokens_hash: 999n, mm_extra_info: null }] } } });
  sink = (data) => void missed.applyEvent(7n, { event_id: 0, dp_rank: 0, data });
  kv.announce();
  assert.deepEqual(reported(missed), reported(live), 'the stale block is cleared and every cached block is back');
  assert.ok(reported(live).length > 0);
});
