// PositionIndex.follow against probe, level by level: a crowded small table (long probe runs that
// wrap past its end), siblings and cousins sharing a (depth, local hash), and removals that shift
// cells back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CELL_NODE, PositionIndex } from '../../../src/router/kv/position-index.js';

interface Node {
  id: number;
  parent: number;
  depth: number;
  hi: number;
  lo: number;
}

/** Nodes as a random tree over a tiny local-hash alphabet, so that (depth, local) pairs repeat under different parents. */
function build(seed: number, count: number): { index: PositionIndex; nodes: Node[]; cellOf: Map<number, number> } {
  let s = seed;
  const rand = (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
  const cellOf = new Map<number, number>();
  const index = new PositionIndex(4, 1, (node, cell) => cellOf.set(node, cell));
  const nodes: Node[] = [{ id: 0, parent: -1, depth: 0, hi: 0, lo: 0 }];
  const bits = new Int32Array(1);
  const taken = new Set<string>();
  while (nodes.length <= count) {
    const parent = nodes[rand(nodes.length)]!;
    const local = 1 + rand(3);
    // Half the hashes use the high word (above 2^31 as u32), so both halves and their sign matter.
    const hi = local % 2 === 0 ? 0x8000_0000 + local : 0;
    const key = `${parent.id}:${local}`;
    if (taken.has(key)) continue;
    taken.add(key);
    const node = { id: nodes.length, parent: parent.id, depth: parent.depth + 1, hi, lo: local };
    index.insert(node.id, node.parent, node.depth, node.hi, node.lo, bits, 0);
    nodes.push(node);
  }
  return { index, nodes, cellOf };
}

/** The hashes from the root down to the node, as the (hi, lo) pairs a query holds. */
function pathTo(nodes: Node[], id: number): Node[] {
  const path: Node[] = [];
  for (let n = nodes[id]!; n.id !== 0; n = nodes[n.parent]!) path.unshift(n);
  return path;
}

function queryOf(path: Node[], extra: number): Uint32Array {
  const q = new Uint32Array((path.length + extra) * 2);
  path.forEach((n, i) => {
    q[i * 2] = n.hi;
    q[i * 2 + 1] = n.lo;
  });
  // A level no node has: the walk must stop before it.
  for (let i = path.length; i < path.length + extra; i++) q[i * 2 + 1] = 99;
  return q;
}

/** Cells found before their home slot: probe runs that wrapped past the end of the table. */
let wrapped = 0;

function checkAll(index: PositionIndex, nodes: Node[], live: Set<number>, cellOf: Map<number, number>): void {
  for (const id of live) {
    const n = nodes[id]!;
    if (cellOf.get(id)! < index.home(n.depth, n.hi, n.lo) * index.stride) wrapped++;
    const path = pathTo(nodes, id);
    if (!path.every((n) => live.has(n.id))) continue;
    const query = queryOf(path, 2);
    const out = new Int32Array(path.length + 2);
    // Whole path from the root, and the tail from its midpoint under the node there.
    const found = index.follow(query, 0, 1, path.length + 2, 0, out);
    assert.equal(found, path.length, `node ${id}: levels found`);
    path.forEach((n, i) => {
      assert.equal(out[i], cellOf.get(n.id), `node ${id}: cell of level ${i + 1}`);
      assert.equal(index.cells[out[i]! + CELL_NODE], n.id);
      assert.equal(out[i], index.probe(index.home(n.depth, n.hi, n.lo), n.parent, n.depth, n.hi, n.lo));
    });
    const mid = path.length >> 1;
    if (mid > 0) {
      const tail = new Int32Array(path.length - mid);
      const got = index.follow(query, mid * 2, mid + 1, path.length - mid, path[mid - 1]!.id, tail);
      assert.equal(got, path.length - mid);
      assert.deepEqual([...tail], path.slice(mid).map((n) => cellOf.get(n.id)));
    }
  }
}

test('follow finds every level that probe finds, and stops at the first absent level', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const { index, nodes, cellOf } = build(seed, 60);
    checkAll(index, nodes, new Set(nodes.slice(1).map((n) => n.id)), cellOf);
  }
  assert.ok(wrapped > 0, 'some probe run wraps past the end of the table');
});

test('follow stays right after removals shift cells back', () => {
  for (let seed = 21; seed <= 30; seed++) {
    const { index, nodes, cellOf } = build(seed, 60);
    const live = new Set(nodes.slice(1).map((n) => n.id));
    for (const n of nodes.slice(1)) {
      if (n.id % 3 !== 0) continue;
      index.remove(cellOf.get(n.id)!);
      cellOf.delete(n.id);
      live.delete(n.id);
      checkAll(index, nodes, live, cellOf);
    }
  }
});

test('a wrong parent is a miss even when depth and local hash match', () => {
  const { index, nodes } = build(7, 40);
  const child = nodes.find((n) => n.depth === 2)!;
  const query = queryOf([child], 0);
  const out = new Int32Array(1);
  const stranger = nodes.find((n) => n.depth === 1 && n.id !== child.parent)!;
  const sibling = nodes.find((n) => n.parent === stranger.id && n.hi === child.hi && n.lo === child.lo);
  assert.equal(index.follow(query, 0, 2, 1, stranger.id, out), sibling ? 1 : 0);
  if (sibling) assert.equal(index.cells[out[0]! + CELL_NODE], sibling.id);
  assert.equal(index.follow(query, 0, 2, 1, child.parent, out), 1);
  assert.equal(index.cells[out[0]! + CELL_NODE], child.id);
});

test('a probe run that passes the last cell continues at the first', () => {
  const index = new PositionIndex(4, 1, () => {});
  // Homes start a cache line of two cells: the last home is the last cell but one.
  const lastHome = index.cells.length / index.stride - 2;
  const los: number[] = [];
  for (let lo = 1; los.length < 3; lo++) if (index.home(1, 0, lo) === lastHome) los.push(lo);
  const bits = new Int32Array(1);
  los.forEach((lo, i) => index.insert(10 + i, 0, 1, 0, lo, bits, 0));
  const out = new Int32Array(1);
  los.forEach((lo, i) => {
    assert.equal(index.follow(new Uint32Array([0, lo]), 0, 1, 1, 0, out), 1, `lo ${lo}`);
    assert.equal(index.cells[out[0]! + CELL_NODE], 10 + i);
  });
  // The third went past the end: it sits in the first cell.
  assert.equal(out[0], 0);
});
