// The typed-array radix tree against a plain model of reference/router.md §3.1 (Maps and Sets, one
// object per node), on random event sequences: every event's status, every overlap score (with and
// without early exit), every worker's block count and the total must agree. Small hash alphabets
// make the same local hash recur at the same depth under different parents, blocks reused under a
// new parent, and cascading drops.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RadixTree, TreeStatus } from '../../../src/router/kv/index.js';

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

/** `storeBlocks`: most blocks per stored event; long stores build paths deeper than find_matches' prefetch run. */
function run(seed: number, workers: number, steps: number, storeBlocks = 4, seqs = 60): void {
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
      for (const early of [false, true]) {
        assert.equal(treeScores(tree, query, early), modelScores(model, query, early), `${what}: find [${query}] early=${early}`);
      }
    }
  }
}

test('random event sequences: statuses, scores and sizes match the model (one bitset word)', () => {
  for (let seed = 1; seed <= 12; seed++) run(seed, 6, 1500);
});

test('random event sequences: statuses, scores and sizes match the model (many workers, bitsets widening mid-run)', () => {
  for (let seed = 100; seed <= 103; seed++) run(seed, 100, 2500);
});

test('random event sequences: statuses, scores and sizes match the model (paths deeper than the prefetch run)', () => {
  for (let seed = 200; seed <= 203; seed++) run(seed, 8, 800, 48, 2000);
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
