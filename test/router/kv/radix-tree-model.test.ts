// The typed-array radix tree against a plain model of reference/router.md §3.1 (Maps and Sets, one
// object per node), on random event sequences: every event's status, every overlap score (with and
// without early exit), every worker's block count and the total must agree. Small hash alphabets
// make the same local hash recur at the same depth under different parents, blocks reused under a
// new parent, and cascading drops.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RadixTree, TreeStatus } from '../../../src/router/kv/index.js';
import { JUMP_LEVELS } from '../../../src/router/kv/radix-tree.js';

interface ModelNode {
  local: number;
  parent: ModelNode | null;
  children: Map<number, ModelNode>;
  workers: Set<number>;
  attached: boolean;
}

class ModelTree {
  readonly root: ModelNode = { local: -1, parent: null, children: new Map(), workers: new Set(), attached: true };
  readonly lookup = new Map<number, Map<number, ModelNode>>();

  blocksOf(slot: number): number {
    return this.lookup.get(slot)?.size ?? 0;
  }

  get size(): number {
    let n = 0;
    for (const m of this.lookup.values()) n += m.size;
    return n;
  }

  stored(slot: number, parent: number | null, blocks: Array<[seq: number, local: number]>): TreeStatus {
    let held = this.lookup.get(slot);
    if (!held) this.lookup.set(slot, (held = new Map()));
    let cur = this.root;
    if (parent !== null) {
      const p = held.get(parent);
      if (!p) return TreeStatus.ParentBlockNotFound;
      cur = p;
    }
    for (const [seq, local] of blocks) {
      let child = cur.children.get(local);
      const previous = held.get(seq);
      if (previous && previous !== child && this.isSelfOrAncestor(previous, cur)) return TreeStatus.InvalidBlockSequence;
      if (!child) {
        if (previous && !previous.attached && previous.children.size === 0) {
          child = previous;
          child.attached = true;
          child.parent = cur;
          child.local = local;
        } else {
          child = { local, parent: cur, children: new Map(), workers: new Set(), attached: true };
        }
        cur.children.set(local, child);
      }
      if (previous !== child) {
        if (previous) this.drop(previous, slot);
        held.set(seq, child);
      }
      child.workers.add(slot);
      cur = child;
    }
    return TreeStatus.Ok;
  }

  removed(slot: number, seqs: number[]): TreeStatus {
    let status: TreeStatus = TreeStatus.Ok;
    const held = this.lookup.get(slot);
    for (const seq of seqs) {
      const node = held?.get(seq);
      if (!node) {
        if (status === TreeStatus.Ok) status = TreeStatus.BlockNotFound;
        continue;
      }
      held!.delete(seq);
      this.drop(node, slot);
    }
    return status;
  }

  clear(slot: number): void {
    const held = this.lookup.get(slot);
    if (!held) return;
    for (const node of [...held.values()]) this.drop(node, slot);
    held.clear();
  }

  find(query: number[], earlyExit: boolean): Array<[slot: number, depth: number]> {
    const out: Array<[number, number]> = [];
    const first = query.length > 0 ? this.root.children.get(query[0]!) : undefined;
    if (!first || first.workers.size === 0) return out;
    let node: ModelNode = first;
    const active = new Set(node.workers);
    let depth = 1;
    if (!(earlyExit && active.size === 1)) {
      for (let idx = 1; idx < query.length; idx++) {
        const child = node.children.get(query[idx]!);
        if (!child) break;
        for (const w of active) {
          if (!child.workers.has(w)) {
            out.push([w, depth]);
            active.delete(w);
          }
        }
        if (active.size === 0) return out;
        depth = idx + 1;
        node = child;
        if (earlyExit && active.size === 1) break;
      }
    }
    for (const w of active) out.push([w, depth]);
    return out;
  }

  /** A path of local hashes from the root to a node the worker holds, if it is attached all the way. */
  pathTo(node: ModelNode): number[] | null {
    const path: number[] = [];
    for (let n: ModelNode | null = node; n && n !== this.root; n = n.parent) {
      if (!n.attached) return null;
      path.unshift(n.local);
    }
    return path;
  }

  private drop(node: ModelNode, slot: number): void {
    if (!node.workers.delete(slot) || node.workers.size > 0) return;
    // An emptied node loses its children; those still held live on detached.
    const stack = [node];
    while (stack.length > 0) {
      const n = stack.pop()!;
      for (const c of n.children.values()) {
        c.attached = false;
        c.parent = null;
        if (c.workers.size === 0) stack.push(c);
      }
      n.children.clear();
    }
    if (!node.attached) node.parent = null;
  }

  private isSelfOrAncestor(candidate: ModelNode, node: ModelNode): boolean {
    for (let n: ModelNode | null = node; n; n = n.parent) if (n === candidate) return true;
    return false;
  }
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

/** Local hashes as u32 pairs; some values use the high half so both halves matter. */
function pairs(values: number[]): Uint32Array {
  const out = new Uint32Array(values.length * 2);
  values.forEach((v, i) => {
    out[i * 2] = v % 3 === 0 ? 0x8000_0000 + v : 0;
    out[i * 2 + 1] = v;
  });
  return out;
}

function treeScores(tree: RadixTree, query: number[], earlyExit: boolean): string {
  const m = tree.findMatches(pairs(query), 0, query.length, earlyExit);
  const out: string[] = [];
  for (let i = 0; i < m.count; i++) out.push(`${m.slots[i]}:${m.depths[i]}`);
  return out.sort().join(' ');
}

function modelScores(model: ModelTree, query: number[], earlyExit: boolean): string {
  return model
    .find(query, earlyExit)
    .map(([s, d]) => `${s}:${d}`)
    .sort()
    .join(' ');
}

/**
 * `storeBlocks`: most blocks per stored event; long stores build paths deeper than find_matches'
 * jump. Returns the longest query asked.
 */
function run(seed: number, workers: number, steps: number, storeBlocks = 4, seqs = 60): number {
  let longest = 0;
  const rand = rng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  // Large enough that the tree never reclaims empty leaves (which the model keeps).
  const tree = new RadixTree(4 * steps);
  const model = new ModelTree();
  const ALPHABET = 5;
  const SEQS = seqs;
  for (let step = 0; step < steps; step++) {
    const slot = pick(workers);
    const held = [...(model.lookup.get(slot)?.keys() ?? [])];
    const r = rand();
    let status: TreeStatus;
    let expected: TreeStatus;
    const what = `seed ${seed} step ${step}`;
    if (r < 0.5) {
      const parent = held.length > 0 && rand() < 0.7 ? held[pick(held.length)]! : rand() < 0.1 ? 999 : null;
      const blocks: Array<[number, number]> = Array.from({ length: 1 + pick(storeBlocks) }, () => [1 + pick(SEQS), 1 + pick(ALPHABET)]);
      const buf = new Uint32Array(blocks.length * 4);
      blocks.forEach(([seq, local], i) => {
        buf[i * 4 + 1] = seq;
        buf.set(pairs([local]), i * 4 + 2);
      });
      expected = model.stored(slot, parent, blocks);
      status = tree.applyStored(slot, parent !== null, 0, parent ?? 0, buf, 0, blocks.length);
    } else if (r < 0.93) {
      const seqs = Array.from({ length: 1 + pick(3) }, () => (held.length > 0 && rand() < 0.9 ? held[pick(held.length)]! : 1 + pick(SEQS)));
      expected = model.removed(slot, seqs);
      const buf = new Uint32Array(seqs.length * 2);
      seqs.forEach((s, i) => (buf[i * 2 + 1] = s));
      status = tree.applyRemoved(slot, buf, 0, seqs.length);
    } else {
      model.clear(slot);
      tree.clearWorker(slot);
      expected = status = TreeStatus.Ok;
    }
    assert.equal(status, expected, `${what}: status`);
    assert.equal(tree.currentSize, model.size, `${what}: current size`);
    for (let w = 0; w < workers; w++) assert.equal(tree.blocksOf(w), model.blocksOf(w), `${what}: blocks of ${w}`);
    // Queries: paths to held blocks (extended at random) and random paths.
    for (let q = 0; q < 4; q++) {
      let query: number[] = [];
      const nodes = [...(model.lookup.get(pick(workers))?.values() ?? [])];
      if (nodes.length > 0 && q < 3) query = model.pathTo(nodes[pick(nodes.length)]!) ?? [];
      while (query.length < 2 || rand() < 0.5) query.push(1 + pick(ALPHABET));
      longest = Math.max(longest, query.length);
      for (const early of [false, true]) {
        assert.equal(treeScores(tree, query, early), modelScores(model, query, early), `${what}: find [${query}] early=${early}`);
      }
    }
  }
  return longest;
}

test('random event sequences: statuses, scores and sizes match the model (one bitset word)', () => {
  for (let seed = 1; seed <= 40; seed++) run(seed, 6, 1500);
});

test('random event sequences: statuses, scores and sizes match the model (many workers, bitsets widening mid-run)', () => {
  for (let seed = 100; seed <= 103; seed++) run(seed, 100, 2500);
});

test('random event sequences: statuses, scores and sizes match the model (paths deeper than the jump)', () => {
  for (let seed = 200; seed <= 203; seed++) run(seed, 8, 800, 48, 2000);
});

test('random event sequences: statuses, scores and sizes match the model (paths of 100 levels and more, many seeds)', () => {
  let longest = 0;
  for (let seed = 300; seed <= 339; seed++) longest = Math.max(longest, run(seed, 8, 400, 150, 4000));
  assert.ok(longest >= 100, `queries reach ${longest} levels`);
});

test('a query longer than the prefetch window matches at full depth, and a miss past it stops there', () => {
  const tree = new RadixTree();
  const depth = 150;
  const blocks = new Uint32Array(depth * 4);
  for (let i = 0; i < depth; i++) {
    blocks[i * 4 + 1] = i + 1;
    blocks[i * 4 + 3] = 7 + (i % 2);
  }
  tree.applyStored(3, false, 0, 0, blocks, 0, depth);
  tree.applyStored(4, false, 0, 0, blocks, 0, 40);
  const query = new Uint32Array((depth + 5) * 2);
  for (let i = 0; i < depth + 5; i++) query[i * 2 + 1] = 7 + (i % 2);
  const m = tree.findMatches(query, 0, depth + 5);
  const got = Array.from({ length: m.count }, (_, i) => [m.slots[i], m.depths[i]]).sort();
  assert.deepEqual(got, [
    [3, depth],
    [4, 40],
  ]);
});

/** The tree and the model side by side: every event's status and every score (with and without early exit) must agree. */
class Pair {
  readonly tree = new RadixTree(1 << 15);
  readonly model = new ModelTree();

  /** Stores blocks given as [seq, local] pairs (locals are small numbers, see pairs()). */
  store(slot: number, parent: number | null, blocks: Array<[number, number]>): void {
    const buf = new Uint32Array(blocks.length * 4);
    blocks.forEach(([seq, local], i) => {
      buf[i * 4 + 1] = seq;
      buf.set(pairs([local]), i * 4 + 2);
    });
    const expected = this.model.stored(slot, parent, blocks);
    assert.equal(this.tree.applyStored(slot, parent !== null, 0, parent ?? 0, buf, 0, blocks.length), expected);
  }

  remove(slot: number, seqs: number[]): void {
    const buf = new Uint32Array(seqs.length * 2);
    seqs.forEach((s, i) => (buf[i * 2 + 1] = s));
    const expected = this.model.removed(slot, seqs);
    assert.equal(this.tree.applyRemoved(slot, buf, 0, seqs.length), expected);
  }

  clear(slot: number): void {
    this.model.clear(slot);
    this.tree.clearWorker(slot);
  }

  /** Scores of the query and of every prefix of it (queries ending at every level, mid-stretch included). */
  check(query: number[], what: string): string {
    for (let len = 1; len <= query.length; len++) {
      const q = query.slice(0, len);
      for (const early of [false, true]) assert.equal(treeScores(this.tree, q, early), modelScores(this.model, q, early), `${what}: ${len} levels early=${early}`);
    }
    return treeScores(this.tree, query, false);
  }
}

/** A chain of `length` blocks: seq base + i, local hash 1 + (i % 4) (locals repeat down the path). */
function chain(base: number, length: number, from = 0): Array<[number, number]> {
  return Array.from({ length: length - from }, (_, k) => [base + from + k, 1 + ((from + k) % 4)]);
}
const localsOf = (blocks: Array<[number, number]>) => blocks.map(([, local]) => local);

test('a hole in a worker\'s chain stops its overlap there, deeper than the jump; re-storing the block closes it', () => {
  const depth = 3 * JUMP_LEVELS + 5;
  const p = new Pair();
  const path = chain(1000, depth);
  p.store(0, null, path);
  p.store(1, null, path);
  const query = [...localsOf(path), 9];
  assert.equal(p.check(query, 'both hold the chain'), `0:${depth} 1:${depth}`);
  for (const hole of [1, JUMP_LEVELS - 1, JUMP_LEVELS, 2 * JUMP_LEVELS + 3, depth - 1]) {
    p.remove(1, [1000 + hole]);
    assert.equal(p.check(query, `hole at ${hole}`), `0:${depth} 1:${hole}`);
    p.store(1, hole > 0 ? 1000 + hole - 1 : null, [path[hole]!]);
    assert.equal(p.check(query, `hole at ${hole} closed`), `0:${depth} 1:${depth}`);
  }
  // Two holes, closed in the other order.
  p.remove(1, [1000 + 7, 1000 + 2 * JUMP_LEVELS + 1]);
  assert.equal(p.check(query, 'two holes'), `0:${depth} 1:7`);
  p.store(1, 1000 + 2 * JUMP_LEVELS, [path[2 * JUMP_LEVELS + 1]!]);
  assert.equal(p.check(query, 'deeper hole closed'), `0:${depth} 1:7`);
  p.store(1, 1000 + 6, [path[7]!]);
  assert.equal(p.check(query, 'both closed'), `0:${depth} 1:${depth}`);
});

test('a wide node (many children) stored by a new worker shows it under the children it holds', () => {
  const p = new Pair();
  const prefix = chain(1, 20);
  p.store(0, null, prefix);
  // 200 children under the prefix, each with a tail of 30 blocks, held by worker 0.
  for (let c = 0; c < 200; c++) {
    p.store(0, 20, [[10_000 + c * 100, 10 + c]]);
    p.store(0, 10_000 + c * 100, chain(10_000 + c * 100 + 1, 30).map(([seq], k) => [seq, 1 + (k % 3)] as [number, number]));
  }
  // Worker 1 holds two of the tails but not the prefix: invisible under it.
  p.store(1, null, [[50, 99]]);
  for (const c of [17, 150]) {
    p.remove(1, [50]);
    p.store(1, null, [...prefix.map(([, local], k) => [500 + k, local] as [number, number])]);
    p.store(1, 519, [[20_000 + c, 10 + c], ...chain(30_000 + c * 100, 30).map(([seq], k) => [seq, 1 + (k % 3)] as [number, number])]);
    p.remove(1, [500]);
  }
  const tail = (c: number) => [...localsOf(prefix), 10 + c, ...Array.from({ length: 30 }, (_, k) => 1 + (k % 3))];
  assert.equal(p.check(tail(17), 'worker 1 lost the first block'), '0:51');
  // Re-storing the prefix's first block shows worker 1 down both tails it holds, and nowhere else.
  p.store(1, null, [[500, prefix[0]![1]]]);
  assert.equal(p.check(tail(17), 'tail 17'), '0:51 1:51');
  assert.equal(p.check(tail(150), 'tail 150'), '0:51 1:51');
  assert.equal(p.check(tail(3), 'tail 3'), '0:51 1:20');
  // Removing a block in the middle of the prefix hides worker 1 below it everywhere.
  p.remove(1, [510]);
  assert.equal(p.check(tail(150), 'prefix hole'), '0:51 1:10');
});

test('removal cascades: an emptied node detaches its children, and queries through it see nobody', () => {
  const depth = 2 * JUMP_LEVELS + 9;
  const p = new Pair();
  const path = chain(1, depth);
  p.store(0, null, path);
  // Worker 1 holds the lower part only (stored under worker 0's blocks, then worker 0 leaves them).
  p.store(1, null, path.slice(0, 5));
  p.store(1, 5, path.slice(5));
  p.remove(1, [1, 2, 3, 4, 5]);
  const query = localsOf(path);
  assert.equal(p.check(query, 'worker 1 dangling'), `0:${depth}`);
  // Worker 0 drops its top block: the node empties, the rest of the path detaches.
  p.remove(0, [1]);
  assert.equal(p.check(query, 'top emptied'), '');
  // A new store of the same path (new nodes where stale ones hang) matches from the root again.
  p.store(2, null, path.map(([seq, local]) => [seq + 5000, local] as [number, number]));
  assert.equal(p.check(query, 'path rebuilt by worker 2'), `2:${depth}`);
  // Worker 0 re-stores its top block: in the model it finds the new node; its detached blocks stay detached.
  p.store(0, null, [path[0]!]);
  assert.equal(p.check(query, 'worker 0 back at the top'), `0:1 2:${depth}`);
  p.clear(2);
  assert.equal(p.check(query, 'worker 2 cleared'), '0:1');
});

test('a detached chain re-attached elsewhere is found at its new path, and not at its old one', () => {
  const p = new Pair();
  const a = chain(1, 2 * JUMP_LEVELS);
  p.store(0, null, a);
  p.store(1, null, a);
  // Worker 1 keeps only the last block; worker 0 drops the whole path, so it detaches.
  p.remove(1, a.slice(0, -1).map(([seq]) => seq));
  p.remove(0, a.map(([seq]) => seq));
  const old = localsOf(a);
  assert.equal(p.check(old, 'old path empty'), '');
  // Worker 1 stores a different path ending in the same block: the detached leaf is re-attached there.
  const b: Array<[number, number]> = [...chain(500, 3 * JUMP_LEVELS + 2).map(([seq, local]) => [seq, 1 + ((local + 1) % 4)] as [number, number]), a[a.length - 1]!];
  p.store(1, null, b);
  assert.equal(p.check(localsOf(b), 'new path'), `1:${b.length}`);
  assert.equal(p.check(old, 'old path still empty'), '');
  // And back under the old prefix, rebuilt by worker 0.
  p.store(0, null, a.slice(0, -1));
  p.store(1, a[a.length - 2]![0], [a[a.length - 1]!]);
  assert.equal(p.check(old, 'old path rebuilt'), `0:${a.length - 1}`);
});

test('early exit stops where one worker is left, at every distance from the checkpoints', () => {
  const depth = 3 * JUMP_LEVELS + 3;
  const path = chain(1, depth);
  for (let drop = 1; drop < depth; drop += 3) {
    const p = new Pair();
    p.store(0, null, path);
    p.store(1, null, path.slice(0, drop));
    p.store(2, null, path.slice(0, Math.min(depth, drop + 5)));
    p.check([...localsOf(path), 7], `others drop at ${drop} and ${drop + 5}`);
  }
});
