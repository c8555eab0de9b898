// PositionIndex: cells keyed by (depth, path fingerprint). lookupLevels (the batched read
// find_matches uses) against find, level by level: a crowded small table (long probe runs that
// wrap past its end), one fingerprint at several depths, removals that shift cells back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CELL_BITS, CELL_NODE, PositionIndex } from '../../../src/router/kv/position-index.js';
import { childFingerprint, pathFingerprints, ROOT_FP_HI, ROOT_FP_LO } from '../../../src/router/kv/path-fingerprint.js';

function rng(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

interface Entry {
  node: number;
  depth: number;
  hi: number;
  lo: number;
}

/** `count` random keys over few depths; some share a fingerprint at different depths. */
function build(seed: number, count: number): { index: PositionIndex; entries: Entry[]; cellOf: Map<number, number> } {
  const rand = rng(seed);
  const cellOf = new Map<number, number>();
  const index = new PositionIndex(4, 1, (node, cell) => cellOf.set(node, cell));
  const entries: Entry[] = [];
  for (let node = 0; node < count; node++) {
    const twin = entries.length > 0 && rand(4) === 0 ? entries[rand(entries.length)]! : null;
    const depth = 1 + rand(6);
    const hi = twin && twin.depth !== depth ? twin.hi : rand(0x7fff_ffff) | (rand(2) << 31);
    const lo = twin && twin.depth !== depth ? twin.lo : rand(0x7fff_ffff);
    if (entries.some((e) => e.depth === depth && e.hi === hi && e.lo === lo)) continue;
    const bits = Int32Array.of(node * 7);
    index.insert(node, depth, hi, lo, bits, 0);
    entries.push({ node, depth, hi, lo });
  }
  return { index, entries, cellOf };
}

/** Looks every live entry up as one batch of levels (entry i at level i of a synthetic query) and one by one. */
function checkAll(index: PositionIndex, entries: Entry[], live: Set<number>, cellOf: Map<number, number>): void {
  // Level l of the batch is looked up at depth l + 1, so each entry gets a level at its depth.
  const byDepth = entries.filter((e) => live.has(e.node));
  const fps = new Int32Array(16);
  const levels = new Int32Array(1);
  const out = new Int32Array(1);
  for (const e of byDepth) {
    fps[(e.depth - 1) * 2] = e.hi;
    fps[(e.depth - 1) * 2 + 1] = e.lo;
    levels[0] = e.depth - 1;
    index.lookupLevels(fps, levels, 1, out);
    assert.equal(out[0], cellOf.get(e.node), `node ${e.node}: batched lookup`);
    assert.equal(index.find(e.depth, e.hi, e.lo), cellOf.get(e.node), `node ${e.node}: find`);
    assert.equal(index.cells[out[0]! + CELL_NODE], e.node);
    assert.equal(index.cells[out[0]! + CELL_BITS], e.node * 7, `node ${e.node}: bits`);
  }
  // Absent keys: a live key at another depth, and a fingerprint nobody has.
  for (const e of byDepth.slice(0, 10)) {
    const other = e.depth === 7 ? 1 : e.depth + 1;
    if (!byDepth.some((x) => x.depth === other && x.hi === e.hi && x.lo === e.lo)) assert.equal(index.find(other, e.hi, e.lo), -1);
  }
  assert.equal(index.find(1, 0x1234, 0x5678), -1);
}

test('lookupLevels and find agree for every key, through probe runs that wrap, with one fingerprint at several depths', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const { index, entries, cellOf } = build(seed, 60);
    checkAll(index, entries, new Set(entries.map((e) => e.node)), cellOf);
  }
});

test('lookups stay right after removals shift cells back', () => {
  for (let seed = 21; seed <= 30; seed++) {
    const { index, entries, cellOf } = build(seed, 60);
    const live = new Set(entries.map((e) => e.node));
    for (const e of entries) {
      if (e.node % 3 !== 0) continue;
      index.remove(cellOf.get(e.node)!);
      cellOf.delete(e.node);
      live.delete(e.node);
      checkAll(index, entries, live, cellOf);
      assert.equal(index.find(e.depth, e.hi, e.lo), -1, 'a removed key is absent');
    }
  }
});

test('a batch looks up many levels of one query, present and absent', () => {
  const index = new PositionIndex(4, 1, () => {});
  const query = new Uint32Array(40 * 2);
  for (let i = 0; i < 40; i++) {
    query[i * 2] = i % 3 === 0 ? 0x8000_0000 + i : 0;
    query[i * 2 + 1] = i + 1;
  }
  const fps = new Int32Array(80);
  pathFingerprints(query, 0, 40, fps);
  const bits = new Int32Array(1);
  // Every other level present.
  for (let l = 0; l < 40; l += 2) index.insert(100 + l, l + 1, fps[l * 2]!, fps[l * 2 + 1]!, bits, 0);
  const levels = Int32Array.from({ length: 40 }, (_, i) => 39 - i);
  const out = new Int32Array(40);
  index.lookupLevels(fps, levels, 40, out);
  levels.forEach((l, i) => {
    if (l % 2 === 0) assert.equal(index.cells[out[i]! + CELL_NODE], 100 + l, `level ${l}`);
    else assert.equal(out[i], -1, `level ${l} absent`);
  });
});

test('a probe run that passes the last cell continues at the first', () => {
  const index = new PositionIndex(4, 1, () => {});
  // Homes start a cache line of two cells: the last home is the last cell but one.
  const lastHome = index.cells.length / index.stride - 2;
  const los: number[] = [];
  for (let lo = 1; los.length < 3; lo++) if (index.home(1, 0, lo) === lastHome) los.push(lo);
  const bits = new Int32Array(1);
  los.forEach((lo, i) => index.insert(10 + i, 1, 0, lo, bits, 0));
  const fps = new Int32Array(2);
  const levels = new Int32Array(1);
  const out = new Int32Array(1);
  los.forEach((lo, i) => {
    fps[1] = lo;
    index.lookupLevels(fps, levels, 1, out);
    assert.equal(index.cells[out[0]! + CELL_NODE], 10 + i, `lo ${lo}`);
  });
  // The third went past the end: it sits in the first cell.
  assert.equal(out[0], 0);
});

test('path fingerprints: a level is its parent mixed with its local hash; siblings and equal locals under different parents differ', () => {
  const query = Uint32Array.of(0, 1, 0x8000_0000, 2, 0, 3);
  const fps = new Int32Array(6);
  pathFingerprints(query, 0, 3, fps);
  const step = new Int32Array(2);
  childFingerprint(ROOT_FP_HI, ROOT_FP_LO, 0, 1, step, 0);
  assert.deepEqual([...fps.subarray(0, 2)], [...step]);
  childFingerprint(fps[0]!, fps[1]!, 0x8000_0000 | 0, 2, step, 0);
  assert.deepEqual([...fps.subarray(2, 4)], [...step]);
  const seen = new Set<string>();
  for (let parent = 0; parent < 64; parent++) {
    for (let local = 0; local < 64; local++) {
      childFingerprint(parent, 0, 0, local, step, 0);
      seen.add(`${step[0]}:${step[1]}`);
    }
  }
  assert.equal(seen.size, 64 * 64, 'distinct (parent, local) pairs give distinct fingerprints');
});
