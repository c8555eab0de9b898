// KV indexer throughput: KV events + find_matches per second on one core, and find_matches latency.
// 64 workers of 16,384 blocks each. The trace is Mooncake-shaped: a Zipf-popular set of shared
// system prompts, multi-turn sessions whose history grows turn by turn, requests spread at random
// over the workers (as upstream's mooncake_bench partitions them). Each worker runs an LRU block
// cache that emits what an engine would: one Stored per prefill (parented on the cached prefix),
// single-block Stored per decode block, single-block Removed per eviction.
// The whole op stream is generated first; the timed loop only applies it.
// With --baseline, the same ops are replayed alternately on an earlier build of the radix tree
// (a compiled radix-tree.js, e.g. from `git archive <commit>`) and on this one, round by round,
// and the ratios are printed.
// Usage: node dist/bench/indexer.js [--requests N] [--warmup N] [--workers N] [--blocks N]
//          [--baseline path/to/radix-tree.js] [--rounds N]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { RadixTree } from '../src/router/kv/index.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '120000' },
    warmup: { type: 'string', default: '60000' },
    workers: { type: 'string', default: '64' },
    blocks: { type: 'string', default: '16384' },
    seed: { type: 'string', default: '7' },
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
});
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
const WORKERS = Number(values.workers);
const CAPACITY = Number(values.blocks);

let rngState = Number(values.seed) >>> 0 || 1;
function rand(): number {
  rngState ^= rngState << 13;
  rngState ^= rngState >>> 17;
  rngState ^= rngState << 5;
  return (rngState >>> 0) / 0x1_0000_0000;
}
const randInt = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

function mix32(x: number, salt: number): number {
  let h = Math.imul(x ^ salt, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}
// A block id names a block and, through the trace's construction, its whole prefix.
const localHi = (id: number) => mix32(id, 0x1234567);
const localLo = (id: number) => mix32(id, 0x7654321);
const seqHi = (id: number) => mix32(id, 0x2468ace);
const seqLo = (id: number) => mix32(id, 0x13579bd);

// ---- trace: shared system prompts (Zipf) + multi-turn sessions -------------------------------
const GROUPS = 1000;
let nextBlockId = 1;
const groupPrefix: number[][] = [];
for (let g = 0; g < GROUPS; g++) {
  const len = randInt(8, 48);
  groupPrefix.push(Array.from({ length: len }, () => nextBlockId++));
}
const zipfCdf: number[] = [];
{
  let sum = 0;
  for (let g = 0; g < GROUPS; g++) zipfCdf.push((sum += 1 / (g + 1)));
  for (let g = 0; g < GROUPS; g++) zipfCdf[g]! /= sum;
}
function zipfGroup(): number {
  const u = rand();
  let lo = 0;
  let hi = GROUPS - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (zipfCdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Session {
  blocks: number[];
  turnsLeft: number;
}
const sessions: Session[] = [];

// ---- op stream -------------------------------------------------------------------------------
const OP_FIND = 0;
const OP_STORE = 1;
const OP_REMOVE = 2;
const OP_WORDS = 6; // type, slot, parentFlag|parent index, offset, count, unused
let ops = new Int32Array(1 << 20);
let opCount = 0;
let data = new Uint32Array(1 << 22);
let dataLen = 0;

function reserve(words: number): number {
  if (dataLen + words > data.length) {
    const next = new Uint32Array(Math.max(data.length * 2, dataLen + words));
    next.set(data.subarray(0, dataLen));
    data = next;
  }
  const at = dataLen;
  dataLen += words;
  return at;
}
function pushOp(type: number, slot: number, parent: number, offset: number, count: number): void {
  if ((opCount + 1) * OP_WORDS > ops.length) {
    const next = new Int32Array(ops.length * 2);
    next.set(ops);
    ops = next;
  }
  const o = opCount++ * OP_WORDS;
  ops[o] = type;
  ops[o + 1] = slot;
  ops[o + 2] = parent;
  ops[o + 3] = offset;
  ops[o + 4] = count;
}
function pushStore(slot: number, parentId: number, ids: number[], from: number, to: number): void {
  const at = reserve((to - from) * 4);
  for (let i = from; i < to; i++) {
    const o = at + (i - from) * 4;
    const id = ids[i]!;
    data[o] = seqHi(id);
    data[o + 1] = seqLo(id);
    data[o + 2] = localHi(id);
    data[o + 3] = localLo(id);
  }
  pushOp(OP_STORE, slot, parentId, at, to - from);
  storedEvents++;
  storedBlocks += to - from;
}

// Per-worker LRU cache over block ids (Map keeps insertion order: first key is least recent).
const caches: Map<number, true>[] = Array.from({ length: WORKERS }, () => new Map());
function insertBlock(slot: number, id: number): void {
  const cache = caches[slot]!;
  if (cache.size >= CAPACITY) {
    const victim = cache.keys().next().value as number;
    cache.delete(victim);
    const at = reserve(2);
    data[at] = seqHi(victim);
    data[at + 1] = seqLo(victim);
    pushOp(OP_REMOVE, slot, 0, at, 1);
  }
  cache.set(id, true);
}

let findOps = 0;
let eventOps = 0;
let storedEvents = 0;
let storedBlocks = 0;
let measuredFrom = 0;
for (let r = 0; r < WARMUP + REQUESTS; r++) {
  if (r === WARMUP) {
    measuredFrom = opCount;
    findOps = 0;
    eventOps = 0;
    storedEvents = 0;
    storedBlocks = 0;
  }
  let session: Session;
  let sessionIndex: number;
  if (sessions.length < 4000 || rand() < 0.25) {
    session = { blocks: [...groupPrefix[zipfGroup()]!], turnsLeft: randInt(1, 10) };
    sessionIndex = sessions.push(session) - 1;
  } else {
    sessionIndex = Math.floor(rand() * sessions.length);
    session = sessions[sessionIndex]!;
  }
  // The new user turn.
  const question = randInt(2, 16);
  for (let q = 0; q < question; q++) session.blocks.push(nextBlockId++);
  const ids = session.blocks;
  const qat = reserve(ids.length * 2);
  for (let i = 0; i < ids.length; i++) {
    data[qat + i * 2] = localHi(ids[i]!);
    data[qat + i * 2 + 1] = localLo(ids[i]!);
  }
  pushOp(OP_FIND, 0, 0, qat, ids.length);
  findOps++;

  const slot = Math.floor(rand() * WORKERS);
  const cache = caches[slot]!;
  let hit = 0;
  while (hit < ids.length && cache.has(ids[hit]!)) {
    cache.delete(ids[hit]!);
    cache.set(ids[hit]!, true);
    hit++;
  }
  const before = opCount;
  for (let i = hit; i < ids.length; i++) insertBlock(slot, ids[i]!);
  if (hit < ids.length) pushStore(slot, hit > 0 ? ids[hit - 1]! : 0, ids, hit, ids.length);
  // Decode: the answer's blocks, each stored on its own as it fills; they join the session history.
  const answer = randInt(1, 4);
  for (let a = 0; a < answer; a++) {
    const id = nextBlockId++;
    const parent = ids[ids.length - 1]!;
    ids.push(id);
    insertBlock(slot, id);
    pushStore(slot, parent, ids, ids.length - 1, ids.length);
  }
  eventOps += opCount - before;
  if (--session.turnsLeft <= 0) {
    sessions[sessionIndex] = sessions[sessions.length - 1]!;
    sessions.pop();
  }
}

// ---- replay ----------------------------------------------------------------------------------
/** What the bench calls on a radix tree; earlier builds have the same methods. */
interface Tree {
  readonly currentSize: number;
  findMatches(query: Uint32Array, offset: number, count: number): { count: number };
  applyStored(slot: number, hasParent: boolean, parentHi: number, parentLo: number, blocks: Uint32Array, offset: number, count: number): number;
  applyRemoved(slot: number, hashes: Uint32Array, offset: number, count: number): number;
}
type TreeClass = new (expectedBlocks: number) => Tree;

/** Applies op `i`; returns the workers matched for a find_matches, 0 for an event. */
function applyOp(tree: Tree, i: number): number {
  const o = i * OP_WORDS;
  const type = ops[o]!;
  if (type === OP_FIND) return tree.findMatches(data, ops[o + 3]!, ops[o + 4]!).count;
  if (type === OP_STORE) {
    const parent = ops[o + 2]!;
    tree.applyStored(ops[o + 1]!, parent !== 0, seqHi(parent), seqLo(parent), data, ops[o + 3]!, ops[o + 4]!);
  } else {
    tree.applyRemoved(ops[o + 1]!, data, ops[o + 3]!, ops[o + 4]!);
  }
  return 0;
}

function apply(tree: Tree, from: number, to: number, latencies: Float64Array | null): number {
  let lat = 0;
  let matched = 0;
  for (let i = from; i < to; i++) {
    if (latencies && ops[i * OP_WORDS] === OP_FIND) {
      const t0 = performance.now();
      matched += applyOp(tree, i);
      latencies[lat++] = performance.now() - t0;
    } else {
      matched += applyOp(tree, i);
    }
  }
  return matched;
}

/**
 * Two builds fed the same ops in lockstep (each op to one then the other, the order alternating),
 * every op timed: both meet the same moments of a shared machine, so their ratio is steadier than
 * that of separate replays. Each also evicts the other's data from the caches, so absolute figures
 * are worse than alone, and the clock reads add to every event.
 */
function lockstep(impls: [TreeClass, TreeClass]): Array<{ find: Float64Array; eventSeconds: number }> {
  const trees = impls.map((Impl) => new Impl(WORKERS * CAPACITY));
  for (const tree of trees) apply(tree, 0, measuredFrom, null);
  const out = trees.map(() => ({ find: new Float64Array(findOps), eventSeconds: 0 }));
  let q = 0;
  for (let i = measuredFrom; i < opCount; i++) {
    const isFind = ops[i * OP_WORDS] === OP_FIND;
    for (let k = 0; k < 2; k++) {
      const t = (i + k) & 1;
      const t0 = performance.now();
      applyOp(trees[t]!, i);
      const dt = performance.now() - t0;
      if (isFind) out[t]!.find[q] = dt;
      else out[t]!.eventSeconds += dt / 1000;
    }
    if (isFind) q++;
  }
  return out;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function replay(Impl: TreeClass, latencies: Float64Array): { seconds: number; cpuSeconds: number; tree: Tree; matched: number } {
  const tree = new Impl(WORKERS * CAPACITY);
  apply(tree, 0, measuredFrom, null);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const matched = apply(tree, measuredFrom, opCount, latencies);
  const cpu = process.cpuUsage(cpu0);
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, tree, matched };
}

interface Figures {
  opsPerSec: number;
  opsPerCpuSec: number;
  p50: number;
  p99: number;
  max: number;
  findCpuUs: number;
  matchedPerQuery: number;
  size: number;
  /** p50 / p99 per query-length bucket (LENGTH_BUCKETS), in µs. */
  byLength: string;
}

/** Query-length buckets (blocks) for the per-length latency figures: the cost grows with the levels read. */
const LENGTH_BUCKETS = [0, 40, 80, 120];

function byLength(latencies: Float64Array): string {
  const groups: number[][] = LENGTH_BUCKETS.map(() => []);
  for (let i = measuredFrom, q = 0; i < opCount; i++) {
    if (ops[i * OP_WORDS] !== OP_FIND) continue;
    let b = LENGTH_BUCKETS.length - 1;
    while (ops[i * OP_WORDS + 4]! < LENGTH_BUCKETS[b]!) b--;
    groups[b]!.push(latencies[q++]!);
  }
  return groups
    .map((g, b) => {
      const sorted = Float64Array.from(g).sort();
      const label = b + 1 < LENGTH_BUCKETS.length ? `${LENGTH_BUCKETS[b]}-${LENGTH_BUCKETS[b + 1]! - 1}` : `${LENGTH_BUCKETS[b]}+`;
      return `${label}: ${(percentile(sorted, 0.5) * 1000).toFixed(1)}/${(percentile(sorted, 0.99) * 1000).toFixed(1)}`;
    })
    .join(', ');
}

/**
 * One replay, timed as a whole and per find_matches call (two clock reads per query cost far less
 * than the events around them), then find_matches alone on the final tree.
 */
function measure(Impl: TreeClass): Figures {
  const latencies = new Float64Array(findOps);
  const throughput = replay(Impl, latencies);
  const lengthFigures = byLength(latencies);
  latencies.sort();
  const pct = (p: number) => percentile(latencies, p) * 1000;
  // CPU time per call: steadier than per-call wall time on a shared machine.
  const tree = throughput.tree;
  const cpu0 = process.cpuUsage();
  for (let i = measuredFrom; i < opCount; i++) {
    const o = i * OP_WORDS;
    if (ops[o] === OP_FIND) tree.findMatches(data, ops[o + 3]!, ops[o + 4]!);
  }
  const cpu = process.cpuUsage(cpu0);
  return {
    opsPerSec: measuredOps / throughput.seconds,
    opsPerCpuSec: measuredOps / throughput.cpuSeconds,
    p50: pct(0.5),
    p99: pct(0.99),
    max: pct(1),
    findCpuUs: (cpu.user + cpu.system) / findOps,
    matchedPerQuery: throughput.matched / findOps,
    size: tree.currentSize,
    byLength: lengthFigures,
  };
}

function line(name: string, f: Figures): string {
  return (
    `${name.padEnd(9)} ops/s ${Math.round(f.opsPerSec).toLocaleString('en')}, ops per CPU s ${Math.round(f.opsPerCpuSec).toLocaleString('en')}, ` +
    `find_matches p50 ${f.p50.toFixed(2)} us p99 ${f.p99.toFixed(2)} us max ${f.max.toFixed(1)} us, CPU ${f.findCpuUs.toFixed(2)} us/call\n` +
    `${''.padEnd(9)} find_matches p50/p99 us by query length in blocks: ${f.byLength}`
  );
}

const measuredOps = opCount - measuredFrom;
console.log(`trace: ${WARMUP} warm-up + ${REQUESTS} measured requests, ${WORKERS} workers x ${CAPACITY} blocks`);
console.log(`measured ops: ${measuredOps} (${findOps} find_matches, ${eventOps} KV events)`);
console.log(`events: ${storedEvents} stored (mean ${(storedBlocks / storedEvents).toFixed(1)} blocks), ${eventOps - storedEvents} single-block removed (evictions)`);
{
  const lengths: number[] = [];
  for (let i = measuredFrom; i < opCount; i++) if (ops[i * OP_WORDS] === OP_FIND) lengths.push(ops[i * OP_WORDS + 4]!);
  lengths.sort((a, b) => a - b);
  const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
  console.log(`query length in blocks: mean ${mean.toFixed(1)}, p50 ${lengths[lengths.length >> 1]}, p99 ${lengths[Math.floor(lengths.length * 0.99)]}`);
}

const Baseline: TreeClass | null = values.baseline
  ? ((await import(pathToFileURL(resolve(values.baseline)).href)) as { RadixTree: TreeClass }).RadixTree
  : null;
const rounds = Math.max(1, Number(values.rounds));
let current: Figures | null = null;
for (let r = 1; r <= rounds; r++) {
  const before = Baseline ? measure(Baseline) : null;
  current = measure(RadixTree);
  if (r === 1) console.log(`tree: ${current.size} worker-blocks indexed; mean workers matched per query ${current.matchedPerQuery.toFixed(2)}`);
  if (before) {
    if (before.size !== current.size || before.matchedPerQuery !== current.matchedPerQuery) throw new Error('the baseline and this build disagree on the trace');
    console.log(`round ${r}`);
    console.log(`  ${line('baseline', before)}`);
    console.log(`  ${line('this', current)}`);
    console.log(
      `  this/baseline: find CPU per call ${(current.findCpuUs / before.findCpuUs).toFixed(2)}, p50 ${(current.p50 / before.p50).toFixed(2)}, ` +
        `p99 ${(current.p99 / before.p99).toFixed(2)}, ops per CPU s ${(current.opsPerCpuSec / before.opsPerCpuSec).toFixed(2)}`,
    );
  } else {
    console.log(line(rounds > 1 ? `round ${r}` : 'this', current));
  }
}
if (Baseline) {
  const [before, after] = lockstep([Baseline, RadixTree]);
  console.log('lockstep (both builds, same ops, alternating):');
  for (const [name, f] of [
    ['baseline', before!],
    ['this', after!],
  ] as const) {
    f.find.sort();
    console.log(
      `  ${name.padEnd(9)} find_matches p50 ${(percentile(f.find, 0.5) * 1000).toFixed(2)} us p90 ${(percentile(f.find, 0.9) * 1000).toFixed(2)} us ` +
        `p99 ${(percentile(f.find, 0.99) * 1000).toFixed(2)} us, events ${Math.round(eventOps / f.eventSeconds).toLocaleString('en')}/s`,
    );
  }
  const ratio = (p: number) => (percentile(after!.find, p) / percentile(before!.find, p)).toFixed(2);
  console.log(`  this/baseline: find p50 ${ratio(0.5)}, p90 ${ratio(0.9)}, p99 ${ratio(0.99)}, event time ${(after!.eventSeconds / before!.eventSeconds).toFixed(2)}`);
}
console.log(`find_matches_cpu_us_per_call=${current!.findCpuUs.toFixed(2)}`);
console.log(`indexer_ops_per_s=${Math.round(current!.opsPerSec)}`);
// CPU time is steadier than wall time on a shared machine.
console.log(`indexer_ops_per_cpu_s=${Math.round(current!.opsPerCpuSec)}`);
console.log(`find_matches_p99_us=${current!.p99.toFixed(2)}`);
