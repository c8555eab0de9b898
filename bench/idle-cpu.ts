// What an idle server costs: each shape is started, left alone until it serves its model and then
// a settle time more, and its CPU time (utime + stime of every process of its tree, from /proc)
// and main-thread wake-ups (voluntary context switches) are read over a window with no request.
// The aim (issue "Fast in the shapes people run", point 5) is at most 0.005 CPU-seconds per second.
// Shapes (all started together, measured over the same window, each process tree on its own):
//   serve:        `npm start`'s command (`serve`, one frontend process per core, malloc settings)
//   serve-1:      `serve --http-workers 1`
//   frontend:     `frontend` (one process per core) over file discovery, TCP request plane, ZMQ events
//   frontend-1:   `frontend --http-workers 1`, beside it on the same discovery
//   mocker:       the one `mocker` process both frontends discover
// Usage: node dist/bench/idle-cpu.js [--shapes serve,serve-1,frontend,frontend-1,mocker]
//        [--settle SECONDS] [--seconds SECONDS] [--cpu-prof DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BIN, freePort, startProcess, type RunningProcess } from '../test/support/processes.js';
import { procDelta, procSnapshot } from './support/proc-stats.js';

const { values } = parseArgs({
  options: {
    shapes: { type: 'string', default: 'serve,serve-1,frontend,frontend-1,mocker' },
    settle: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '20' },
    'cpu-prof': { type: 'string' },
  },
});
const TARGET_CPU_PER_SECOND = 0.005;
const MODEL = 'Qwen/Qwen3-0.6B';
const READY_MS = 120_000;
const settleMs = Number(values.settle) * 1000;
const windowMs = Number(values.seconds) * 1000;
const wanted = new Set(values.shapes!.split(',').filter(Boolean));
const pool = availableParallelism();
/** What `npm start` sets before it execs the server (package.json "start"). */
const NPM_START_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' };
const quiet = { DYN_LOG: 'warn' };
const profileDir = values['cpu-prof'];
const profileArgs = (name: string): string[] => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []);

interface Shape {
  name: string;
  command: string;
  proc: RunningProcess;
  /** Resolves once the shape serves (a frontend lists the model on every process). */
  ready: Promise<void>;
}

/** Polls /v1/models on fresh connections until `times` answers in a row list the model: with a pool, each process got its turn. */
async function servedEverywhere(port: number, proc: RunningProcess, times: number): Promise<void> {
  const deadline = Date.now() + READY_MS;
  let inARow = 0;
  while (inARow < times) {
    if (proc.proc.exitCode !== null || Date.now() > deadline) throw new Error(`not serving ${MODEL} on port ${port}:\n${proc.output()}`);
    const res = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { connection: 'close' } }).catch(() => null);
    const body = res?.ok ? ((await res.json()) as { data: { id: string }[] }) : { data: [] };
    inARow = body.data.some((m) => m.id === MODEL) ? inARow + 1 : 0;
    if (inARow === 0) await new Promise((r) => setTimeout(r, 200));
  }
}

async function frontendShape(name: string, args: string[], env: Record<string, string>, workers: number): Promise<Shape> {
  const port = await freePort();
  const all = [...args, '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', String(workers)];
  const proc = startProcess(all, env, BIN, profileArgs(name));
  return { name, command: `dynamo-ts ${all.join(' ')}`, proc, ready: servedEverywhere(port, proc, 4 * workers) };
}

async function main(): Promise<void> {
  const kvRoot = mkdtempSync(path.join(tmpdir(), 'bench-idle-kv-'));
  const cluster = { ...quiet, DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_TCP_RPC_HOST: '127.0.0.1' };
  const shapes: Shape[] = [];
  try {
    if (wanted.has('serve')) shapes.push(await frontendShape('serve', ['serve'], { ...quiet, ...NPM_START_ENV }, pool));
    if (wanted.has('serve-1')) shapes.push(await frontendShape('serve-1', ['serve'], quiet, 1));
    const needsMocker = wanted.has('mocker') || wanted.has('frontend') || wanted.has('frontend-1');
    if (needsMocker) {
      const proc = startProcess(['mocker'], cluster, BIN, profileArgs('mocker'));
      // Ready once a frontend serves its model; alone, once it has registered (a moment after start).
      shapes.push({ name: 'mocker', command: 'dynamo-ts mocker (file discovery, TCP request plane, ZMQ events)', proc, ready: Promise.resolve() });
    }
    if (wanted.has('frontend')) shapes.push(await frontendShape('frontend', ['frontend'], cluster, pool));
    if (wanted.has('frontend-1')) shapes.push(await frontendShape('frontend-1', ['frontend'], cluster, 1));
    await Promise.all(shapes.map((s) => s.ready));
    await new Promise((r) => setTimeout(r, settleMs));
    const before = shapes.map((s) => procSnapshot(s.proc.proc.pid!));
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, windowMs));
    const seconds = (performance.now() - t0) / 1000;
    const after = shapes.map((s) => procSnapshot(s.proc.proc.pid!));
    console.log(`idle for ${seconds.toFixed(1)} s after ${settleMs / 1000} s settled; ${pool} cores; aim ${TARGET_CPU_PER_SECOND} CPU-s/s`);
    console.log('| shape | CPU-s/s | × aim | wake-ups/s | command |');
    console.log('|---|---|---|---|---|');
    shapes.forEach((s, i) => {
      const d = procDelta(before[i]!, after[i]!);
      const cpu = d.cpuMicros / 1e6 / seconds;
      console.log(`| ${s.name} | ${cpu.toFixed(4)} | ${(cpu / TARGET_CPU_PER_SECOND).toFixed(1)} | ${(d.wakeups / seconds).toFixed(1)} | \`${s.command}\` |`);
    });
  } finally {
    // Frontends first, so none sees its worker go before it stops.
    await Promise.all(shapes.filter((s) => s.name !== 'mocker').map((s) => s.proc.stop(30_000)));
    await Promise.all(shapes.filter((s) => s.name === 'mocker').map((s) => s.proc.stop(30_000)));
    rmSync(kvRoot, { recursive: true, force: true });
  }
}

await main();
