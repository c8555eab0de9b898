// The gateway in the shapes people run, beside what Node, nginx and another gateway do with the
// same traffic, side by side in one run. Every server is a child process (mocker at
// --speedup-ratio 1e9: the engine is never the limit); so is the load generator
// (bench/support/load-generator.ts), one per measurement. Alternatives:
//   ceiling:  a bare node:http server streaming canned OpenAI chunks (bench/support/canned-openai.ts)
//   serve:    `dynamo-ts serve` as started with no flags (what `npm start` runs; the CLI picks the
//             process count)
//   serve-w1: `dynamo-ts serve --http-workers 1`
//   prod:     the production shape: `dynamo-ts frontend` (no flags) + one `dynamo-ts mocker` process,
//             file discovery, TCP request plane; CPU read per process
//   bridge:   `dynamo-ts frontend --upstream-config` in front of a second canned server (token-in:
//             it answers token ids, as vLLM does)
//   bridge-w: `dynamo-ts frontend` + `dynamo-ts worker openai` (the bridge over TCP) in front of it
//   nginx:    Debian nginx proxying the second canned server (the pass-through bar)
//   portkey:  the Portkey AI gateway (Node) in front of it, installed by the bench from npm into a
//             scratch folder (bench/support/portkey-gateway.ts); left out, with the reason, when
//             the install fails
//   base-*:   with --baseline DIR, another checkout's serve-w1, prod, bridge and bridge-w, for before/after
// Every dynamo-ts process runs in the environment and with the node flags of its checkout's `npm
// start` (bench/support/npm-start.ts), which the container image gives every subcommand too: the
// bridges' processes without its larger young generation scavenged 12x as often under the ttft load.
// Rounds interleave the alternatives of each workload, each round starting one further along
// (A B C, B C A, ...):
//   stream: 256 concurrent SSE chat streams; streamed tokens/s, the server's CPU time per token
//           (every thread of every process of the shape, in ns from /proc schedstat, the parts
//           apart), SSE events per socket write (events received / the server's write system
//           calls, from /proc/<pid>/io);
//   unary:  small non-streaming chats over 64 kept-alive connections, driven by wrk when installed
//           (else the Node load generator, with a warning: it caps nginx at about half); req/s,
//           the server's CPU time per request;
//   ttft:   ~1k-token prompts at 100 req/s; time to the first SSE event, from the request's
//           actual send (the load generator warms itself first: its first requests were slow for
//           every alternative); "send late" is how far the client's sends fell behind their
//           schedule (a client or host stall, which also sends the next requests in a burst), "CPU
//           wait" how long the shape's main threads were ready to run but had no CPU (other
//           processes on the host). Both are there to tell a server's tail from the host's. "Added"
//           TTFT is the alternative's percentile minus the ceiling's (client, loopback and HTTP are
//           in both), the ceiling measured in the same job: it gets the same prompts half an
//           interval after each of the alternative's, so the two percentiles come from the same
//           seconds (this host's speed drifts by up to 2x from minute to minute).
// Usage: node dist/bench/compare.js [--quick] [--rounds N] [--baseline DIR] [--cpu-prof DIR]
//        [--only stream,unary,ttft] [--shapes serve,serve-w1,...] [--node-args="--flag ..."]
// --node-args: flags for the node processes of this build (e.g. --max-inlined-bytecode-size=0 for a
// profile that names small functions). --cpu-prof DIR: V8 profiles of this build's processes.
// --quick finishes within 3 minutes; the last line is always the summary of the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BIN, freePort, REPO_ROOT, waitForModel } from '../test/support/processes.js';
import type { LoadJob, StreamResult, TtftResult, UnaryResult } from './support/load-generator.js';
import { NGINX, startNginx } from './support/nginx-proxy.js';
import { installPortkey, portkeyHeaders, startPortkey } from './support/portkey-gateway.js';
import { NO_USE, procSnapshot, procDelta, procSum, type ProcSnapshot } from './support/proc-stats.js';
import { npmStartShape, type StartShape } from './support/npm-start.js';
import { runWrk, WRK, wrkInstalled } from './support/wrk.js';

const MODEL = 'Qwen/Qwen3-0.6B';
/** The model name the bridges serve the canned server as. */
const BRIDGED = 'canned';
const HERE = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    baseline: { type: 'string' },
    'cpu-prof': { type: 'string' },
    only: { type: 'string', default: 'stream,unary,ttft' },
    shapes: { type: 'string', default: 'serve,serve-w1,prod,bridge,bridge-w,nginx,portkey' },
    'node-args': { type: 'string', default: '' },
  },
});
const workloads = new Set(values.only.split(','));
const shapes = new Set(values.shapes.split(','));
const quick = values.quick;
const rounds = Number(values.rounds ?? (quick ? 2 : 5));
const STREAMS = 256;
const UNARY_CONNECTIONS = 64;
const streamJob = { concurrency: STREAMS, maxTokens: 1000, warmupMs: quick ? 600 : 2000, durationMs: quick ? 2000 : 8000 };
const unaryJob = { concurrency: UNARY_CONNECTIONS, maxTokens: 8, warmupMs: 500, durationMs: quick ? 2000 : 6000 };
const ttftJob = { rate: 100, durationMs: quick ? 1500 : 8000 };
/** Long-prompt requests each alternative serves unmeasured before the TTFT rounds, and their rate. */
const TTFT_WARM_REQUESTS = quick ? 2_000 : 4_000;
const TTFT_WARM_RATE = 1_000;
/**
 * Long prompts open at once in the warm-up: a shape slower than TTFT_WARM_RATE is warmed as fast as
 * it answers, with a short queue at most (Portkey's first event waits ~27 ms: it needs ~30 open).
 */
const TTFT_WARM_OPEN = 32;
const SPEEDUP = ['--speedup-ratio', '1000000000'];
const useWrk = wrkInstalled();

/** One alternative: where it listens, what it serves, and whose CPU is its own. */
interface Alternative {
  name: string;
  port: number;
  model: string;
  headers?: Record<string, string>;
  /** Its processes, each read apart (a process's children count in it: a pool's frontend processes). */
  parts: { name: string; pid: number }[];
  /** Not measured on this workload (nginx streams are measured; none is skipped by default). */
  skips?: ReadonlySet<string>;
  stop(): Promise<unknown>;
}

interface Child {
  proc: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

const scratch: string[] = [];

function child(args: string[], env: Record<string, string | undefined> = {}): Child {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  const proc = spawn(process.execPath, args, { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, exited, output: () => out };
}

async function stopChild(c: { proc: ChildProcess; exited: Promise<void> }): Promise<void> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGTERM');
  const timer = setTimeout(() => c.proc.kill('SIGKILL'), 10_000);
  await c.exited;
  clearTimeout(timer);
}

async function waitHttp(port: number, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer on port ${port} within 60 s`);
}

async function startCanned(name: string): Promise<Alternative & { child: Child }> {
  const port = await freePort();
  const c = child([path.join(HERE, 'support/canned-openai.js'), String(port)]);
  await waitHttp(port, name);
  return { name, port, model: 'canned', parts: [{ name, pid: c.proc.pid! }], child: c, stop: () => stopChild(c) };
}

/** This build's processes (profiled with --cpu-prof, with --node-args), or the baseline's. */
interface Build {
  bin: string;
  nodeArgs: (part: string) => string[];
  /** How the checkout's `npm start` runs node (its environment and node flags), for every process. */
  start: StartShape;
}

const thisBuild: Build = {
  bin: BIN,
  nodeArgs: (part) => [
    ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'], part)}`] : []),
    ...values['node-args'].split(' ').filter(Boolean),
  ],
  start: npmStartShape(REPO_ROOT),
};
const baseBuild = (dir: string): Build => ({ bin: path.resolve(dir, 'bin/dynamo-ts.js'), nodeArgs: () => [], start: npmStartShape(dir) });

/**
 * `dynamo-ts <args>` of `build`, in the environment and with the node flags of the build's `npm
 * start`; DYN_HTTP_WORKERS is cleared so the CLI's own default shows.
 */
function dynamo(build: Build, part: string, args: string[], env: Record<string, string> = {}): Child {
  const { start } = build;
  return child([...start.nodeArgs, ...build.nodeArgs(part), build.bin, ...args], { DYN_LOG: 'warn', DYN_HTTP_WORKERS: undefined, ...start.env, ...env });
}

async function ready(c: Child, port: number, model: string): Promise<void> {
  const exited = c.exited.then(() => c.proc.exitCode);
  await waitForModel(`http://127.0.0.1:${port}`, model, { proc: c.proc, output: c.output, exited, stop: async () => null }, 120_000);
}

const httpFlags = (port: number): string[] => ['--http-host', '127.0.0.1', '--http-port', String(port)];

async function startServe(name: string, build: Build, extra: string[]): Promise<Alternative> {
  const port = await freePort();
  const c = dynamo(build, name, ['serve', ...httpFlags(port), ...SPEEDUP, ...extra]);
  await ready(c, port, MODEL);
  return { name, port, model: MODEL, parts: [{ name: 'serve', pid: c.proc.pid! }], stop: () => stopChild(c) };
}

/** A frontend over file discovery and the TCP request plane, with `worker` as its one worker process. */
async function startDistributed(name: string, build: Build, workerArgs: string[], model: string, workerName: string): Promise<Alternative> {
  const kv = mkdtempSync(path.join(tmpdir(), 'bench-compare-kv-'));
  scratch.push(kv);
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kv, DYN_REQUEST_PLANE: 'tcp', DYN_TCP_RPC_HOST: '127.0.0.1' };
  const worker = dynamo(build, `${name}-${workerName}`, workerArgs, env);
  const port = await freePort();
  const frontend = dynamo(build, `${name}-frontend`, ['frontend', ...httpFlags(port)], env);
  await ready(frontend, port, model);
  return {
    name,
    port,
    model,
    parts: [
      { name: 'frontend', pid: frontend.proc.pid! },
      { name: workerName, pid: worker.proc.pid! },
    ],
    stop: async () => {
      await stopChild(frontend);
      await stopChild(worker);
    },
  };
}

async function startBridge(name: string, build: Build, upstreamPort: number): Promise<Alternative> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-compare-bridge-'));
  scratch.push(dir);
  const file = path.join(dir, 'upstreams.yaml');
  writeFileSync(file, `models:\n  ${BRIDGED}: ["http://127.0.0.1:${upstreamPort}"]\n`);
  const port = await freePort();
  const c = dynamo(build, name, ['frontend', ...httpFlags(port), '--discovery-backend', 'mem', '--request-plane', 'inproc', '--event-plane', 'inproc', '--upstream-config', file]);
  await ready(c, port, BRIDGED);
  return { name, port, model: BRIDGED, parts: [{ name: 'frontend', pid: c.proc.pid! }], stop: () => stopChild(c) };
}

const bridgeWorkerArgs = (upstreamPort: number): string[] => ['worker', 'openai', '--upstream', `http://127.0.0.1:${upstreamPort}`, '--model-name', BRIDGED];

/** CPU, writes and wake-ups of every part of `a` over one measurement. */
const sum = (xs: ProcSnapshot[]): ProcSnapshot => xs.reduce(procSum, NO_USE);

async function load<R>(job: LoadJob): Promise<R> {
  const c = child([path.join(HERE, 'support/load-generator.js'), JSON.stringify(job)]);
  await c.exited;
  if (c.proc.exitCode !== 0) throw new Error(`load generator failed:\n${c.output()}`);
  return JSON.parse(c.output().trim().split('\n').pop()!) as R;
}

const target = (a: Alternative) => ({ port: a.port, model: a.model, headers: a.headers });

interface StreamFigures {
  tokensPerSec: number;
  cpuMicrosPerToken: number;
  /** Per part, in the order of `parts`. */
  partMicrosPerToken: number[];
  eventsPerWrite: number;
}

async function measureStream(a: Alternative): Promise<StreamFigures> {
  const r = await load<StreamResult>({ kind: 'stream', ...target(a), pids: a.parts.map((p) => p.pid), ...streamJob });
  const all = sum(r.servers);
  return {
    tokensPerSec: r.tokens / r.seconds,
    cpuMicrosPerToken: all.cpuMicros / r.tokens,
    partMicrosPerToken: r.servers.map((s) => s.cpuMicros / r.tokens),
    eventsPerWrite: r.events / all.writeCalls,
  };
}

interface UnaryFigures {
  reqPerSec: number;
  cpuMicrosPerReq: number;
  partMicrosPerReq: number[];
  /** Socket write calls per request, every process of the shape. */
  writesPerReq: number;
}

/**
 * Requests each alternative serves unmeasured before its first unary measurement, and the bound on
 * that warm-up in seconds. A server's JIT is warm after a number of requests, not of seconds: the
 * bridge, at a third of serve's rate, still cost 2-4x its steady CPU per request after 1 s.
 */
const UNARY_WARM_REQUESTS = 10_000;
const UNARY_WARM_MAX_S = 10;

/** Alternatives wrk has warmed (it has no warm-up of its own). */
const wrkWarmed = new Set<string>();

async function measureUnary(a: Alternative): Promise<UnaryFigures> {
  let requests: number;
  let seconds: number;
  let failures: number;
  let servers: ProcSnapshot[];
  if (useWrk) {
    const body = JSON.stringify({ model: a.model, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: unaryJob.maxTokens, ignore_eos: true });
    const url = `http://127.0.0.1:${a.port}/v1/chat/completions`;
    // wrk has no warm-up: unrecorded runs before the first, until the alternative has served
    // UNARY_WARM_REQUESTS (a time-boxed warm-up left a slower one measured while its JIT was cold).
    for (let served = 0, s = 0; !wrkWarmed.has(a.name) && served < UNARY_WARM_REQUESTS && s < UNARY_WARM_MAX_S; s++) {
      served += (await runWrk(url, body, a.headers ?? {}, UNARY_CONNECTIONS, 1)).requests;
    }
    wrkWarmed.add(a.name);
    const from = a.parts.map((p) => procSnapshot(p.pid));
    ({ requests, seconds, failures } = await runWrk(url, body, a.headers ?? {}, UNARY_CONNECTIONS, Math.round(unaryJob.durationMs / 1000)));
    servers = a.parts.map((p, i) => procDelta(from[i]!, procSnapshot(p.pid)));
  } else {
    ({ requests, seconds, failures, servers } = await load<UnaryResult>({ kind: 'unary', ...target(a), pids: a.parts.map((p) => p.pid), ...unaryJob }));
  }
  if (failures > 0) console.log(`  ${a.name}: ${failures} unary failures`);
  return { reqPerSec: requests / seconds, cpuMicrosPerReq: sum(servers).cpuMicros / requests, partMicrosPerReq: servers.map((s) => s.cpuMicros / requests), writesPerReq: sum(servers).writeCalls / requests };
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface TtftFigures {
  p50: number;
  p99: number;
  sendLateP99: number;
  /** The shape's main threads' wait for a CPU per request, in ms (all parts). */
  cpuWaitMsPerReq: number;
  partMicrosPerReq: number[];
  /** p50 and p99 over the reference's (the ceiling's) of the same job; NaN without one. */
  addedP50: number;
  addedP99: number;
}

async function measureTtft(a: Alternative, reference: Alternative | undefined): Promise<TtftFigures> {
  const from = a.parts.map((p) => procSnapshot(p.pid));
  const r = await load<TtftResult>({ kind: 'ttft', ...target(a), ...ttftJob, ...(reference && reference !== a ? { reference: target(reference) } : {}) });
  // The server's CPU went to the load generator's warm-up requests too.
  const requests = r.sent;
  const spent = a.parts.map((p, i) => procDelta(from[i]!, procSnapshot(p.pid)));
  if (r.failures > 0) console.log(`  ${a.name}: ${r.failures} ttft failures`);
  return {
    p50: percentile(r.samplesMs, 50),
    p99: percentile(r.samplesMs, 99),
    addedP50: r.referenceMs.length > 0 ? percentile(r.samplesMs, 50) - percentile(r.referenceMs, 50) : NaN,
    addedP99: r.referenceMs.length > 0 ? percentile(r.samplesMs, 99) - percentile(r.referenceMs, 99) : NaN,
    sendLateP99: percentile(r.sendLateMs, 99),
    cpuWaitMsPerReq: sum(spent).cpuWaitMicros / requests / 1000,
    partMicrosPerReq: spent.map((s) => s.cpuMicros / requests),
  };
}

/** Each round starts one further along the list: no alternative always runs in the same slot (the slot after the ceiling measured worse TTFT). */
const rotated = <T>(xs: readonly T[], round: number): T[] => xs.map((_, i) => xs[(i + round - 1) % xs.length]!);

const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : '-');

async function main(): Promise<void> {
  const started = performance.now();
  const loads = [loadavg()[0]!];
  if (!useWrk) console.log(`WARNING: ${WRK} not found: unary load from the Node load generator, which caps nginx at about half of what it serves (apt-get install wrk)`);
  const ceiling = await startCanned('ceiling');
  const upstream = await startCanned('upstream');
  const alternatives: Alternative[] = [ceiling];
  const stops: (() => Promise<unknown>)[] = [ceiling.stop, upstream.stop];
  const want = (name: string): boolean => shapes.has(name);

  const builds: [string, Build][] = [['', thisBuild], ...(values.baseline ? [['base-', baseBuild(values.baseline)] as [string, Build]] : [])];
  const starting: Promise<Alternative | null>[] = [];
  for (const [prefix, build] of builds) {
    // The baseline runs the shapes whose figures the goals are about, in the configuration measured before.
    const of = (name: string): boolean => want(name) && (prefix === '' || ['serve-w1', 'prod', 'bridge', 'bridge-w'].includes(name));
    if (of('serve') && prefix === '') starting.push(startServe('serve', build, []));
    if (of('serve-w1')) starting.push(startServe(`${prefix}serve-w1`, build, ['--http-workers', '1']));
    if (of('prod')) starting.push(startDistributed(`${prefix}prod`, build, ['mocker', ...SPEEDUP], MODEL, 'mocker'));
    if (of('bridge')) starting.push(startBridge(`${prefix}bridge`, build, upstream.port));
    if (of('bridge-w')) starting.push(startDistributed(`${prefix}bridge-w`, build, bridgeWorkerArgs(upstream.port), BRIDGED, 'worker'));
  }
  if (want('nginx') && !existsSync(NGINX)) console.log(`nginx left out: ${NGINX} not found (apt-get install nginx-light)`);
  else if (want('nginx')) {
    const port = await freePort();
    const nginx = startNginx(port, upstream.port);
    await waitHttp(port, 'nginx');
    starting.push(Promise.resolve({ name: 'nginx', port, model: 'canned', parts: [{ name: 'nginx', pid: nginx.pid }], stop: () => nginx.stop() }));
  }
  if (want('portkey')) {
    starting.push(
      (async () => {
        const installed = await installPortkey();
        if ('error' in installed) {
          console.log(`portkey left out: ${installed.error}`);
          return null;
        }
        const port = await freePort();
        const proc = startPortkey(installed.entry, port);
        const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
        await waitHttp(port, 'portkey');
        return { name: 'portkey', port, model: 'canned', headers: portkeyHeaders(upstream.port), parts: [{ name: 'portkey', pid: proc.pid! }], stop: () => stopChild({ proc, exited }) };
      })(),
    );
  }
  for (const a of await Promise.all(starting)) {
    if (!a) continue;
    alternatives.push(a);
    stops.push(a.stop);
  }
  console.log(`started in ${((performance.now() - started) / 1000).toFixed(0)} s: ${alternatives.map((a) => a.name).join(', ')}; unary load: ${useWrk ? 'wrk' : 'Node load generator'}`);

  // One unrecorded pass warms every server's JIT, tokenizer and connection pools. The long-prompt
  // path warms by a number of requests, as the unary one does: after 300 long prompts the bridge
  // frontend's JIT was still compiling on its background threads (~0.5 ms of CPU per request
  // there, its TTFT p50 0.4-0.8 ms higher); after 2,000-4,000 they were quiet. They are sent
  // faster than measured, so the warm-up takes seconds; at most TTFT_WARM_OPEN at a time (the
  // bridge over a worker process answers ~450 a second here: sent 1,000 a second they queued for up
  // to 2 s, their objects promoted, and the old generation's collection then fell in a measured job).
  for (const a of alternatives) {
    await load({ kind: 'stream', ...target(a), pids: [], ...streamJob, warmupMs: 200, durationMs: quick ? 300 : 800 });
    if (workloads.has('ttft')) await load({ kind: 'ttft', ...target(a), rate: TTFT_WARM_RATE, durationMs: (1000 * TTFT_WARM_REQUESTS) / TTFT_WARM_RATE, maxOpen: TTFT_WARM_OPEN });
  }

  const stream = new Map<string, StreamFigures[]>();
  const unary = new Map<string, UnaryFigures[]>();
  const ttft = new Map<string, TtftFigures[]>();
  const add = <T>(m: Map<string, T[]>, k: string, v: T): void => void (m.get(k) ?? m.set(k, []).get(k)!).push(v);
  const parts = (a: Alternative, xs: number[]): string => (a.parts.length > 1 ? ` (${a.parts.map((p, i) => `${p.name} ${fmt(xs[i]!)}`).join(' + ')})` : '');
  for (let round = 1; round <= rounds; round++) {
    for (const a of workloads.has('stream') ? rotated(alternatives, round) : []) {
      const f = await measureStream(a);
      add(stream, a.name, f);
      console.log(`round ${round} stream ${a.name.padEnd(13)} tokens/s=${fmt(f.tokensPerSec, 0)} cpu_us_per_token=${fmt(f.cpuMicrosPerToken)}${parts(a, f.partMicrosPerToken)} events_per_write=${fmt(f.eventsPerWrite)}`);
    }
    for (const a of workloads.has('unary') ? rotated(alternatives, round) : []) {
      const u = await measureUnary(a);
      add(unary, a.name, u);
      console.log(`round ${round} unary  ${a.name.padEnd(13)} req/s=${fmt(u.reqPerSec, 0)} cpu_us_per_req=${fmt(u.cpuMicrosPerReq, 0)}${parts(a, u.partMicrosPerReq)} writes_per_req=${fmt(u.writesPerReq, 1)}`);
    }
    for (const a of workloads.has('ttft') ? rotated(alternatives, round) : []) {
      const t = await measureTtft(a, ceiling);
      add(ttft, a.name, t);
      console.log(`round ${round} ttft   ${a.name.padEnd(13)} p50_ms=${fmt(t.p50)} p99_ms=${fmt(t.p99)} added_p50_ms=${fmt(t.addedP50)} added_p99_ms=${fmt(t.addedP99)} send_late_p99_ms=${fmt(t.sendLateP99)} cpu_wait_ms_per_req=${fmt(t.cpuWaitMsPerReq, 3)} cpu_us_per_req=${fmt(t.partMicrosPerReq.reduce((x, y) => x + y, 0), 0)}${parts(a, t.partMicrosPerReq)}`);
    }
    loads.push(loadavg()[0]!);
  }
  for (const stop of stops.reverse()) await stop();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });

  // Ratios are taken per round (the alternatives of a round ran side by side), then the median.
  const perRound = <T>(m: Map<string, T[]>, a: string, b: string, f: (x: T, y: T) => number): number =>
    median((m.get(a) ?? []).map((x, i) => (m.get(b)?.[i] === undefined ? NaN : f(x, m.get(b)![i]!))).filter(Number.isFinite));
  const med = <T>(m: Map<string, T[]>, k: string, f: (x: T) => number): number => median((m.get(k) ?? []).map(f));
  const names = alternatives.map((a) => a.name);
  console.log(`\n${rounds} interleaved rounds, ${((performance.now() - started) / 1000).toFixed(0)} s, load average (1 min) ${loads.map((l) => l.toFixed(1)).join(' ')}; medians over rounds`);
  console.log(`| figure | ${names.join(' | ')} |`);
  console.log(`|---|${names.map(() => '---|').join('')}`);
  const row = (label: string, f: (a: Alternative) => string): void => console.log(`| ${label} | ${alternatives.map(f).join(' | ')} |`);
  const partsOf = (a: Alternative, m: Map<string, (StreamFigures | UnaryFigures)[]>, pick: (x: StreamFigures | UnaryFigures) => number[], digits: number): string =>
    a.parts.length > 1 ? ` (${a.parts.map((p, i) => `${p.name} ${fmt(med(m, a.name, (x) => pick(x)[i]!), digits)}`).join(' + ')})` : '';
  if (workloads.has('stream')) {
    row(`streamed tokens/s, ${STREAMS} streams`, (a) => fmt(med(stream, a.name, (x) => x.tokensPerSec), 0));
    row('ratio to the ceiling', (a) => fmt(perRound(stream, a.name, 'ceiling', (x, y) => x.tokensPerSec / y.tokensPerSec), 3));
    row('server CPU µs per streamed token', (a) => fmt(med(stream, a.name, (x) => x.cpuMicrosPerToken)) + partsOf(a, stream, (x) => (x as StreamFigures).partMicrosPerToken, 2));
    row('SSE events per socket write', (a) => fmt(med(stream, a.name, (x) => x.eventsPerWrite)));
  }
  if (workloads.has('ttft')) {
    row('TTFT p50 / p99 ms (1k-token prompts, 100 req/s)', (a) => `${fmt(med(ttft, a.name, (x) => x.p50))} / ${fmt(med(ttft, a.name, (x) => x.p99))}`);
    row('client send late p99 ms', (a) => fmt(med(ttft, a.name, (x) => x.sendLateP99)));
    row("server main threads' CPU wait ms per request", (a) => fmt(med(ttft, a.name, (x) => x.cpuWaitMsPerReq), 3));
    row('added TTFT p50 / p99 ms', (a) =>
      a.name === 'ceiling' ? '-' : `${fmt(med(ttft, a.name, (x) => x.addedP50))} / ${fmt(med(ttft, a.name, (x) => x.addedP99))}`,
    );
  }
  if (workloads.has('unary')) {
    row(`unary req/s (${useWrk ? 'wrk' : 'Node client'}, ${UNARY_CONNECTIONS} connections)`, (a) => fmt(med(unary, a.name, (x) => x.reqPerSec), 0));
    row('unary ratio to nginx', (a) => fmt(perRound(unary, a.name, 'nginx', (x, y) => x.reqPerSec / y.reqPerSec), 3));
    row('server CPU µs per unary request', (a) => fmt(med(unary, a.name, (x) => x.cpuMicrosPerReq), 0) + partsOf(a, unary, (x) => (x as UnaryFigures).partMicrosPerReq, 0));
  }

  const tokens = (k: string): number => med(stream, k, (x) => x.tokensPerSec);
  const cpu = (k: string): number => med(stream, k, (x) => x.cpuMicrosPerToken);
  const part = (k: string, i: number): number => med(stream, k, (x) => x.partMicrosPerToken[i] ?? NaN);
  const reqCpu = (k: string): number => med(unary, k, (x) => x.cpuMicrosPerReq);
  const vs = <T>(m: Map<string, T[]>, a: string, b: string, f: (x: T) => number): number => perRound(m, a, b, (x, y) => f(x) / f(y));
  const added = (k: string, p: 'addedP50' | 'addedP99'): number => med(ttft, k, (x) => x[p]);
  const figures: [string, number, number][] = [
    ['sse_tokens_per_s', tokens('serve'), 0],
    ['sse_ratio_vs_ceiling', perRound(stream, 'serve', 'ceiling', (x, y) => x.tokensPerSec / y.tokensPerSec), 3],
    ['ttft_added_p50_ms', added('serve', 'addedP50'), 2],
    ['ttft_added_p99_ms', added('serve', 'addedP99'), 2],
    ['unary_ratio_vs_nginx', perRound(unary, 'serve', 'nginx', (x, y) => x.reqPerSec / y.reqPerSec), 3],
    ['unary_cpu_us_per_req', reqCpu('serve'), 0],
    ['default_vs_w1_stream', vs(stream, 'serve', 'serve-w1', (x) => x.tokensPerSec), 3],
    ['default_vs_w1_unary', vs(unary, 'serve', 'serve-w1', (x) => x.reqPerSec), 3],
    ['prod_vs_w1_stream', vs(stream, 'prod', 'serve-w1', (x) => x.tokensPerSec), 3],
    ['prod_frontend_us_per_token', part('prod', 0), 2],
    ['prod_mocker_us_per_token', part('prod', 1), 2],
    ['bridge_us_per_token', cpu('bridge'), 2],
    ['bridge_us_per_req', reqCpu('bridge'), 0],
    ['bridge_ttft_added_p50_ms', added('bridge', 'addedP50'), 2],
    ['bridge_ttft_added_p99_ms', added('bridge', 'addedP99'), 2],
    ['bridge_w_us_per_token', cpu('bridge-w'), 2],
    ['bridge_w_us_per_req', reqCpu('bridge-w'), 0],
    ['portkey_us_per_token', cpu('portkey'), 2],
    ['nginx_unary_req_s', med(unary, 'nginx', (x) => x.reqPerSec), 0],
  ];
  console.log(`${figures.map(([k, v, d]) => `${k}=${fmt(v, d)}`).join(' ')} unary_client=${useWrk ? 'wrk' : 'node'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
