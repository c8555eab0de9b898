// One frontend process against a pool of N (--http-workers), side by side in one run, interleaved
// A B / B A: what is measured is the frontend, the engine never being the limit.
// Targets (--target):
//   frontend (default): `dynamo-ts frontend --http-workers 1` and `--http-workers N`, both in front of
//     the SAME `dynamo-ts mocker` process(es) (speedup 1e9, started once for the run, file discovery
//     in a temp dir, TCP request plane): the same transport on both sides.
//   serve: `dynamo-ts serve --http-workers 1` and `N`. Not like for like: with one process the mocker
//     is called in-process, with a pool every request and token crosses the TCP request plane.
// Workloads (each a table row per server):
//   long:   R1 non-streaming chats with ~1k-token prompts (each prompt distinct), C at a time over
//           keep-alive connections: template, tokenizing and JSON on the frontend; few tokens out.
//   stream: S concurrent SSE chat streams of T tokens each (one connection per stream): tokens/s.
//   unary:  R small non-streaming chats, C at a time over keep-alive connections: req/s.
// CPU per unit of work is read from /proc (utime + stime), for the frontend's process tree and the
// mockers separately, steadier than wall time on a shared machine; the load generator's own CPU too.
// Usage: node dist/bench/frontend-pool.js [--target frontend|serve] [--processes N] [--rounds N]
//        [--streams S] [--tokens T] [--requests R] [--long-requests R1] [--prompt-words W]
//        [--concurrency C] [--rate RPS] [--mockers M] [--mocker-args=ARGS] [--frontend-args=ARGS] [--workloads long,stream,unary]
//        [--cpu-prof DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BIN, freePort, startProcess, type RunningProcess } from '../test/support/processes.js';
import { cpuMicros, median } from './support/cpu-time.js';
import { procChildren, procDelta, procSnapshot, type ProcSnapshot } from './support/proc-stats.js';
import { streamChat, streamingChatBody } from './support/sse-client.js';

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'frontend' },
    processes: { type: 'string', default: String(availableParallelism()) },
    rounds: { type: 'string', default: '3' },
    streams: { type: 'string', default: '256' },
    tokens: { type: 'string', default: '300' },
    requests: { type: 'string', default: '3000' },
    'long-requests': { type: 'string', default: '1000' },
    'prompt-words': { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '64' },
    rate: { type: 'string', default: '0' },
    mockers: { type: 'string', default: '1' },
    'mocker-args': { type: 'string', default: '' },
    'frontend-args': { type: 'string', default: '' },
    workloads: { type: 'string', default: 'long,stream,unary' },
    'cpu-prof': { type: 'string' },
  },
});
const MODEL = 'Qwen/Qwen3-0.6B';
const SPEEDUP = ['--speedup-ratio', '1000000000'];
const READY_MS = 120_000;
const processes = Number(values.processes);
const rounds = Number(values.rounds);
const streams = Number(values.streams);
const tokensPerStream = Number(values.tokens);
const requests = Number(values.requests);
const longRequests = Number(values['long-requests']);
const promptWords = Number(values['prompt-words']);
const concurrency = Number(values.concurrency);
const rate = Number(values.rate);
const mockers = Number(values.mockers);
const mockerArgs = values['mocker-args']!.split(' ').filter(Boolean);
const frontendArgs = values['frontend-args']!.split(' ').filter(Boolean);
const quiet = { DYN_LOG: 'warn' };
/** With --cpu-prof DIR, each server's processes (and the mockers) write V8 CPU profiles under DIR/<name> when they exit. */
const profileDir = values['cpu-prof'];
const profileArgs = (name: string): string[] => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []);

/** One side of the comparison: where it listens, and whose CPU is whose. */
interface Server {
  name: string;
  port: number;
  /** The frontend: one process, or the pool's primary with its processes below it. */
  frontend: RunningProcess;
}

/** What both sides of a target share, started once and stopped at the end. */
interface Target {
  servers: [Server, Server];
  /** The engine processes, when they are apart from the frontends. */
  mockers: RunningProcess[];
  describe: string;
  stop(): Promise<void>;
}

/** Polls /v1/models on fresh connections until `times` answers in a row list the model: with a pool, each process got its turn. */
async function untilServedEverywhere(server: Server, times: number): Promise<void> {
  const deadline = Date.now() + READY_MS;
  let inARow = 0;
  while (inARow < times) {
    if (server.frontend.proc.exitCode !== null || Date.now() > deadline) throw new Error(`${server.name} is not serving ${MODEL}:\n${server.frontend.output()}`);
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/models`, { headers: { connection: 'close' } }).catch(() => null);
    const body = res?.ok ? ((await res.json()) as { data: { id: string }[] }) : { data: [] };
    inARow = body.data.some((m) => m.id === MODEL) ? inARow + 1 : 0;
    if (inARow === 0) await new Promise((r) => setTimeout(r, 100));
  }
}

async function startServer(name: string, args: string[], env: Record<string, string>, workers: number): Promise<Server> {
  const port = await freePort();
  // The pool's processes are forked with the primary's node arguments: they profile too.
  const frontend = startProcess([...args, ...frontendArgs, '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', String(workers)], env, BIN, profileArgs(`${workers}-process`));
  const server = { name, port, frontend };
  await untilServedEverywhere(server, 4 * workers);
  return server;
}

const targets: Record<string, () => Promise<Target>> = {
  async frontend() {
    const kvRoot = mkdtempSync(path.join(tmpdir(), 'bench-pool-kv-'));
    const env = { ...quiet, DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_TCP_RPC_HOST: '127.0.0.1' };
    const engines = Array.from({ length: mockers }, () => startProcess(['mocker', ...SPEEDUP, ...mockerArgs], env, BIN, profileArgs('mocker')));
    const started: Server[] = [];
    const stop = async (): Promise<void> => {
      await Promise.all(started.map((s) => s.frontend.stop(30_000)));
      await Promise.all(engines.map((m) => m.stop(30_000)));
      rmSync(kvRoot, { recursive: true, force: true });
    };
    try {
      started.push(await startServer('frontend, 1 process', ['frontend'], env, 1));
      started.push(await startServer(`frontend, ${processes} processes`, ['frontend'], env, processes));
    } catch (err) {
      await stop();
      throw err;
    }
    return {
      servers: [started[0]!, started[1]!],
      mockers: engines,
      describe: `dynamo-ts frontend --http-workers 1 vs ${processes}, both over the same ${mockers} mocker process(es) (file discovery, TCP request plane, speedup 1e9)`,
      stop,
    };
  },
  async serve() {
    const started: Server[] = [];
    const stop = async (): Promise<void> => void (await Promise.all(started.map((s) => s.frontend.stop(30_000))));
    try {
      started.push(await startServer('serve, 1 process', ['serve', ...SPEEDUP], quiet, 1));
      started.push(await startServer(`serve, ${processes} processes`, ['serve', ...SPEEDUP], quiet, processes));
    } catch (err) {
      await stop();
      throw err;
    }
    return {
      servers: [started[0]!, started[1]!],
      mockers: [],
      describe: `dynamo-ts serve --http-workers 1 vs ${processes} (the mocker in-process with one, over the TCP request plane with a pool: its CPU is in the server's)`,
      stop,
    };
  },
};

/** One non-streaming chat; resolves with its latency in ms. */
function unaryChat(port: number, agent: http.Agent, payload: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - start) : reject(new Error(`status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * `count` chats over at most `concurrency` keep-alive connections; `payloadOf(i)` is the i-th body.
 * Closed loop (each connection sends its next request when the last one ends), or with --rate an
 * open loop: request i leaves at i / rate seconds whatever the server's pace.
 */
async function unaryRun(port: number, count: number, payloadOf: (i: number) => string): Promise<Done> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  if (rate > 0) {
    const start = performance.now();
    const sent: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      sent.push(unaryChat(port, agent, payloadOf(i)).then((ms) => void latencies.push(ms)));
    }
    await Promise.all(sent);
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < count; i = next++) latencies.push(await unaryChat(port, agent, payloadOf(i)));
      }),
    );
  }
  agent.destroy();
  return { units: count, latencies };
}

const WORDS = 'the sea wind over harbour light ships sail north river stone city market bread morning evening garden window letter story quiet road bridge winter summer music teacher village mountain forest cloud rain'.split(' ');

/** About `promptWords` tokens of plain prose (one word is about one token), distinct per request from its first words on. */
function longPrompt(i: number): string {
  const words: string[] = [`Request ${i}: summarise this.`];
  let seed = (i * 2654435761) >>> 0;
  for (let w = 0; w < promptWords; w++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    words.push(WORDS[seed % WORDS.length]!);
  }
  return words.join(' ');
}

const smallChat = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, ignore_eos: true });
let longOffset = 0;

/** What a workload did: its units of work (requests or tokens) and each request's latency (ms; streams: to the first token). */
interface Done {
  units: number;
  latencies: number[];
}

interface Workload {
  unit: string;
  run(port: number): Promise<Done>;
}

const workloads: Record<string, Workload> = {
  long: {
    unit: 'req',
    run(port) {
      // Never the same prompt twice in the run: no cache on either side helps.
      const offset = longOffset;
      longOffset += longRequests;
      return unaryRun(port, longRequests, (i) => JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: longPrompt(offset + i) }], max_tokens: 8, ignore_eos: true }));
    },
  },
  stream: {
    unit: 'token',
    async run(port) {
      const agent = new http.Agent({ keepAlive: false, maxSockets: streams });
      const payload = streamingChatBody(MODEL, tokensPerStream);
      const done = await Promise.all(Array.from({ length: streams }, () => streamChat(port, payload, agent)));
      agent.destroy();
      return { units: done.reduce((n, s) => n + s.tokens, 0), latencies: done.map((s) => s.ttftMs) };
    },
  },
  unary: {
    unit: 'req',
    run: (port) => unaryRun(port, requests, () => smallChat),
  },
};

interface Run extends FrontendWork {
  perSecond: number;
  /** Request latency (streams: time to the first token). */
  p50Ms: number;
  p99Ms: number;
  mockerCpuUs: number;
  clientCpuUs: number;
  /** The other server meanwhile, serving nothing: what its processes spend on the shared view (KV events, load reports). */
  idleCpuUs: number;
  /** The pool's primary alone (accepting connections and handing them over), in the frontend's. */
  primaryCpuUs: number;
  /** Each pool process's share of the frontend CPU (the processes below the primary), in %. */
  split: number[];
}

function percentile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** What the frontend's processes spent per unit of work. */
interface FrontendWork {
  frontendCpuUs: number;
  /** Socket writes (write/writev calls). */
  frontendWrites: number;
  /** Event-loop wake-ups (voluntary context switches of each process's main thread). */
  frontendWakeups: number;
}

function perUnit(d: ProcSnapshot, units: number): FrontendWork {
  return { frontendCpuUs: d.cpuMicros / units, frontendWrites: d.writeCalls / units, frontendWakeups: d.wakeups / units };
}

/** A process's own CPU, without its children's. */
function ownCpu(pid: number): number {
  return procSnapshot(pid).cpuMicros - procChildren(pid).reduce((n, c) => n + procSnapshot(c).cpuMicros, 0);
}

function childCpu(pid: number): Map<number, number> {
  return new Map(procChildren(pid).map((c) => [c, procSnapshot(c).cpuMicros]));
}

async function measure(target: Target, server: Server, workload: Workload): Promise<Run> {
  const pid = server.frontend.proc.pid!;
  const mockerCpu = (): number => target.mockers.reduce((n, m) => n + procSnapshot(m.proc.pid!).cpuMicros, 0);
  const f0 = procSnapshot(pid);
  const idle = target.servers.find((s) => s !== server)!.frontend.proc.pid!;
  const i0 = procSnapshot(idle).cpuMicros;
  const own0 = ownCpu(pid);
  const m0 = mockerCpu();
  const c0 = cpuMicros();
  const kids0 = childCpu(pid);
  const t0 = performance.now();
  const { units, latencies } = await workload.run(server.port);
  const seconds = (performance.now() - t0) / 1000;
  const kids1 = childCpu(pid);
  const spent = [...kids1].map(([child, cpu]) => cpu - (kids0.get(child) ?? cpu));
  const total = spent.reduce((a, b) => a + b, 0);
  return {
    perSecond: units / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    ...perUnit(procDelta(f0, procSnapshot(pid)), units),
    mockerCpuUs: (mockerCpu() - m0) / units,
    idleCpuUs: (procSnapshot(idle).cpuMicros - i0) / units,
    clientCpuUs: (cpuMicros() - c0) / units,
    primaryCpuUs: spent.length > 0 ? (ownCpu(pid) - own0) / units : 0,
    split: total > 0 && spent.length > 1 ? spent.map((s) => (100 * s) / total) : [],
  };
}

async function main(): Promise<void> {
  const startTarget = targets[values.target!];
  if (!startTarget) throw new Error(`--target must be one of ${Object.keys(targets).join(', ')}`);
  const chosen = values.workloads!.split(',').map((name) => [name, workloads[name]] as const);
  for (const [name, w] of chosen) if (!w) throw new Error(`unknown workload ${name}: one of ${Object.keys(workloads).join(', ')}`);
  const target = await startTarget();
  const [one, pool] = target.servers;
  const results = new Map<string, Run[]>();
  const loads: number[] = [loadavg()[0]!];
  try {
    // Warm both (JIT, tokenizer, connections to the workers) before anything counts.
    for (const s of target.servers) for (const [, w] of chosen) await w!.run(s.port);
    for (let r = 0; r < rounds; r++) {
      for (const [wi, [name, w]] of chosen.entries()) {
        const order = (r + wi) % 2 === 0 ? [one, pool] : [pool, one];
        for (const s of order) {
          const key = `${name}|${s.name}`;
          results.set(key, [...(results.get(key) ?? []), await measure(target, s, w!)]);
        }
      }
      loads.push(loadavg()[0]!);
      process.stderr.write(`round ${r + 1}/${rounds} done\n`);
    }
  } finally {
    await target.stop();
  }
  const fmt = (v: number): string => (v < 10 ? v.toFixed(2) : v.toFixed(v < 100 ? 1 : 0));
  console.log(`${target.describe}; ${rounds} rounds interleaved; long: ${longRequests} chats of ~${promptWords}-word prompts; stream: ${streams} streams × ${tokensPerStream} tokens; unary: ${requests} small chats; ${rate > 0 ? `open loop at ${rate} req/s (at most ${concurrency} connections)` : `closed loop, concurrency ${concurrency}`}; cores ${availableParallelism()}; load average (1 min) ${loads.map((l) => l.toFixed(1)).join(' ')}`);
  console.log('| workload | server | per s | latency p50 / p99 ms | frontend CPU µs/unit | frontend writes/unit | frontend wake-ups/unit | of which the pool\'s primary | the other, idle server\'s CPU µs/unit | mocker CPU µs/unit | load generator CPU µs/unit | pool processes\' CPU split % |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const ratios: string[] = [];
  for (const [name, w] of chosen) {
    const row = (s: Server) => {
      const runs = results.get(`${name}|${s.name}`)!;
      const r = {
        perSecond: median(runs.map((x) => x.perSecond)),
        p50Ms: median(runs.map((x) => x.p50Ms)),
        p99Ms: median(runs.map((x) => x.p99Ms)),
        frontendCpuUs: median(runs.map((x) => x.frontendCpuUs)),
        frontendWrites: median(runs.map((x) => x.frontendWrites)),
        frontendWakeups: median(runs.map((x) => x.frontendWakeups)),
        mockerCpuUs: median(runs.map((x) => x.mockerCpuUs)),
        clientCpuUs: median(runs.map((x) => x.clientCpuUs)),
        primaryCpuUs: median(runs.map((x) => x.primaryCpuUs)),
        idleCpuUs: median(runs.map((x) => x.idleCpuUs)),
      };
      const split = runs.map((x) => x.split.map((p) => p.toFixed(0)).join('/')).filter(Boolean).join(', ');
      const mocker = target.mockers.length ? fmt(r.mockerCpuUs) : 'in the server';
      console.log(`| ${name} | ${s.name} | ${fmt(r.perSecond)} ${w!.unit}/s | ${fmt(r.p50Ms)} / ${fmt(r.p99Ms)} | ${fmt(r.frontendCpuUs)} | ${r.frontendWrites.toFixed(2)} | ${r.frontendWakeups.toFixed(2)} | ${split ? fmt(r.primaryCpuUs) : '-'} | ${fmt(r.idleCpuUs)} | ${mocker} | ${fmt(r.clientCpuUs)} | ${split || '-'} |`);
      return r;
    };
    const a = row(one);
    const b = row(pool);
    ratios.push(`pool_${name}_ratio=${(b.perSecond / a.perSecond).toFixed(2)} pool_${name}_cpu_per_unit_ratio=${(b.frontendCpuUs / a.frontendCpuUs).toFixed(2)}`);
  }
  console.log(ratios.join(' '));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
