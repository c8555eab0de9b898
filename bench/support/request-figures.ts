// CPU and bytes per request of an in-process bench, and the rounds that set builds side by side:
// each build measured in a child process of its own (on its own dist/), one after the other in
// every round (A B, A B, ...), the medians printed.

import { execFileSync } from 'node:child_process';
import inspector from 'node:inspector';
import path from 'node:path';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median } from './cpu-time.js';

/** The options such a bench takes: --baseline DIR, --rounds N, --requests N, and --root DIR (the build a child measures). */
export function benchOptions(requests: number) {
  return {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: String(requests) },
    root: { type: 'string' },
  } as const;
}

/** What one child process reports of its build. */
export interface RequestFigures {
  /** CPU µs per request, the best of 5 runs. */
  cpu: number;
  /** Bytes allocated per request (a sampling heap profile that counts collected objects). */
  bytes: number;
  /**
   * µs of GC pauses per request over the CPU runs: objects that outlive their request and are
   * promoted make the young GCs long (absent from a build whose bench did not count them).
   */
  gc?: number;
}

export interface HeapNode {
  selfSize: number;
  children: HeapNode[];
}

/** A build to measure: its name in the output and its checkout. */
export interface Build {
  name: string;
  root: string;
}

/** The bench at `benchUrl` (its import.meta.url) on this checkout and, with `baseline`, on that one, side by side. */
export function compareWithBaseline(benchUrl: string, baseline: string | undefined, rounds: number, childArgs: (build: Build, self: boolean) => string[]): void {
  const bench = fileURLToPath(benchUrl);
  const here = path.resolve(path.dirname(bench), '../..');
  const builds = [{ name: 'this build', root: here }, ...(baseline ? [{ name: 'baseline', root: path.resolve(baseline) }] : [])];
  compareBuilds(bench, builds, rounds, (build) => childArgs(build, build.root === here));
}

/** Runs `rounds` rounds over `builds`, each build's figures from `node <self> <childArgs(build)>` (its last line, as JSON). */
export function compareBuilds(self: string, builds: readonly Build[], rounds: number, childArgs: (build: Build) => string[]): void {
  const figures = new Map<string, { cpu: number[]; bytes: number[]; gc: number[] }>(builds.map((b) => [b.name, { cpu: [], bytes: [], gc: [] }]));
  const gcText = (gc: number[]): string => (gc.length > 0 ? ` gc_us_per_req=${median(gc).toFixed(2)}` : '');
  for (let round = 1; round <= rounds; round++) {
    for (const build of builds) {
      const out = execFileSync(process.execPath, [self, ...childArgs(build)], { encoding: 'utf8', env: { ...process.env, DYN_LOG: 'error' } });
      const { cpu, bytes, gc } = JSON.parse(out.trim().split('\n').at(-1)!) as RequestFigures;
      const f = figures.get(build.name)!;
      f.cpu.push(cpu);
      f.bytes.push(bytes);
      if (gc !== undefined) f.gc.push(gc);
      console.log(`round ${round} ${build.name.padEnd(10)} cpu_us_per_req=${cpu.toFixed(2)} bytes_per_req=${Math.round(bytes)}${gcText(gc === undefined ? [] : [gc])}`);
    }
  }
  for (const [name, f] of figures) console.log(`median ${name.padEnd(10)} cpu_us_per_req=${median(f.cpu).toFixed(2)} bytes_per_req=${Math.round(median(f.bytes))}${gcText(f.gc)}`);
}

/**
 * The figures of `run` (which serves `count` requests): warmed with half as many, CPU the best of
 * 5 runs of `requests` and GC pauses over them, bytes from one more run under the heap sampler;
 * with its profile.
 */
export async function measureRequests(run: (count: number) => Promise<void>, requests: number): Promise<{ figures: RequestFigures; profile: { head: HeapNode } }> {
  await run(requests / 2);
  let cpu = Infinity;
  let gcMs = 0;
  const addGc = (entries: PerformanceEntry[]): void => {
    for (const e of entries) gcMs += e.duration;
  };
  const gcs = new PerformanceObserver((list) => addGc(list.getEntries()));
  gcs.observe({ entryTypes: ['gc'] });
  for (let k = 0; k < 5; k++) {
    const before = process.cpuUsage();
    await run(requests);
    const used = process.cpuUsage(before);
    cpu = Math.min(cpu, (used.user + used.system) / requests);
  }
  addGc(gcs.takeRecords());
  gcs.disconnect();
  const { bytes, profile } = await sampledAllocation(() => run(requests));
  return { figures: { cpu, bytes: bytes / requests, gc: (gcMs * 1000) / (5 * requests) }, profile };
}

/**
 * The bytes `run` allocates, objects already collected included (a sampling heap profile, every
 * 1 KB), and the profile. Apart from CPU figures: sampling costs time per sample.
 */
export async function sampledAllocation(run: () => Promise<void>): Promise<{ bytes: number; profile: { head: HeapNode } }> {
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await run();
  const { profile } = await post<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
  session.disconnect();
  return { bytes: sampledBytes(profile.head), profile };
}

/** Serves `count` requests `batch` at a time (`one(i)` serves request i), each batch awaited whole. */
export async function inBatches(one: (i: number) => Promise<void>, count: number, batch: number): Promise<void> {
  for (let i = 0; i < count; i += batch) {
    const started: Promise<void>[] = [];
    for (let j = 0; j < batch; j++) started.push(one(i + j));
    await Promise.all(started);
  }
}

function sampledBytes(node: HeapNode): number {
  let total = node.selfSize;
  for (const child of node.children) total += sampledBytes(child);
  return total;
}
