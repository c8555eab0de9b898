// The gateway against what Node and nginx do with the same traffic, side by side in one run:
//   ceiling: a bare node:http server streaming canned OpenAI chunks (bench/support/canned-openai.ts)
//   serve:   `dynamo-ts serve` with the mocker at --speedup-ratio 1e9 (the engine is never the limit)
//   nginx:   Debian nginx proxying the canned server (unary requests only: the pass-through bar)
//   base:    with --baseline DIR, another checkout's `serve`, for before/after in the same run
// Every server is a child process; so is the load generator (bench/support/load-generator.ts), one
// per measurement. Rounds interleave the alternatives of each workload, each round starting one
// further along (A B C, B C A, C A B, ...):
//   stream: 256 concurrent SSE chat streams; streamed tokens/s, the server's CPU time per token
//           (from /proc/<pid>/stat), SSE events per socket write (events received / the server's
//           write system calls over the window, from /proc/<pid>/io; a Node server writes each
//           socket write with one write or writev call);
//   unary:  small non-streaming chats, 32 at a time; req/s, the server's CPU time per request;
//   ttft:   ~1k-token prompts at 100 req/s; time to the first SSE event. "Added" TTFT is the
//           gateway's percentile minus the ceiling's (client, loopback and HTTP are in both).
// `serve` runs as one frontend process (--http-workers 1: the goals compare it with the single-process
// ceiling) unless --http-workers says otherwise; CPU time and writes count the whole process tree.
// Usage: node dist/bench/compare.js [--quick] [--rounds N] [--baseline DIR] [--cpu-prof DIR] [--only stream,unary,ttft]
//        [--http-workers N] [--node-args="--flag ..."]
// --node-args: flags for the node process of this build's `serve` (e.g. --max-inlined-bytecode-size=0
// for a profile that names small functions, or --heap-prof).
// --quick finishes within 2 minutes; the last line is always the summary of the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BIN, freePort, waitForModel } from '../test/support/processes.js';
import type { LoadJob, StreamResult, TtftResult, UnaryResult } from './support/load-generator.js';
import { startNginx } from './support/nginx-proxy.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const HERE = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    baseline: { type: 'string' },
    'cpu-prof': { type: 'string' },
    only: { type: 'string', default: 'stream,unary,ttft' },
    'http-workers': { type: 'string', default: '1' },
    'node-args': { type: 'string', default: '' },
  },
});
const workloads = new Set(values.only.split(','));
const quick = values.quick;
const rounds = Number(values.rounds ?? (quick ? 2 : 5));
const STREAMS = 256;
const streamJob = { concurrency: STREAMS, maxTokens: 1000, warmupMs: quick ? 1000 : 2000, durationMs: quick ? 4000 : 8000 };
const unaryJob = { concurrency: 32, maxTokens: 8, warmupMs: 500, durationMs: quick ? 3000 : 6000 };
const ttftJob = { rate: 100, durationMs: quick ? 4000 : 8000 };

interface Server {
  name: string;
  port: number;
  pid: number;
  stop(): Promise<unknown>;
}

function child(args: string[], env: Record<string, string> = {}): { proc: ChildProcess; exited: Promise<void>; output: () => string } {
  const proc = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

async function startCanned(name: string): Promise<Server> {
  const port = await freePort();
  const c = child([path.join(HERE, 'support/canned-openai.js'), String(port)]);
  await waitHttp(port, name);
  return { name, port, pid: c.proc.pid!, stop: () => stopChild(c) };
}

async function startServe(name: string, bin: string, profileDir?: string, extraArgs: string[] = []): Promise<Server> {
  const port = await freePort();
  const nodeArgs = [...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] : []), ...extraArgs];
  const c = child([...nodeArgs, bin, 'serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000000000', '--http-workers', values['http-workers']], {
    DYN_LOG: 'warn',
  });
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, { proc: c.proc, output: c.output, exited: c.exited.then(() => c.proc.exitCode), stop: async () => null }, 60_000);
  return { name, port, pid: c.proc.pid!, stop: () => stopChild(c) };
}

async function load<R>(job: LoadJob): Promise<R> {
  const c = child([path.join(HERE, 'support/load-generator.js'), JSON.stringify(job)]);
  await c.exited;
  if (c.proc.exitCode !== 0) throw new Error(`load generator failed:\n${c.output()}`);
  return JSON.parse(c.output().trim().split('\n').pop()!) as R;
}

interface StreamFigures {
  tokensPerSec: number;
  cpuMicrosPerToken: number;
  eventsPerWrite: number;
  eventsPerRead: number;
}

async function measureStream(s: Server): Promise<StreamFigures> {
  const r = await load<StreamResult>({ kind: 'stream', port: s.port, pid: s.pid, model: MODEL, ...streamJob });
  return {
    tokensPerSec: r.tokens / r.seconds,
    cpuMicrosPerToken: r.server.cpuMicros / r.tokens,
    eventsPerWrite: r.events / r.server.writeCalls,
    eventsPerRead: r.events / r.reads,
  };
}

interface UnaryFigures {
  reqPerSec: number;
  cpuMicrosPerReq: number;
}

async function measureUnary(s: Server): Promise<UnaryFigures> {
  const r = await load<UnaryResult>({ kind: 'unary', port: s.port, pid: s.pid, model: MODEL, ...unaryJob });
  if (r.failures > 0) console.log(`  ${s.name}: ${r.failures} unary failures`);
  return { reqPerSec: r.requests / r.seconds, cpuMicrosPerReq: r.server.cpuMicros / r.requests };
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function measureTtft(s: Server): Promise<{ p50: number; p99: number }> {
  const r = await load<TtftResult>({ kind: 'ttft', port: s.port, model: MODEL, ...ttftJob });
  if (r.failures > 0) console.log(`  ${s.name}: ${r.failures} ttft failures`);
  return { p50: percentile(r.samplesMs, 50), p99: percentile(r.samplesMs, 99) };
}

/** Each round starts one further along the list: no alternative always runs in the same slot (the slot after the ceiling measured worse TTFT). */
const rotated = <T>(xs: readonly T[], round: number): T[] => xs.map((_, i) => xs[(i + round - 1) % xs.length]!);

const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : 'NaN');

async function main(): Promise<void> {
  const started = performance.now();
  const ceiling = await startCanned('ceiling');
  const upstream = await startCanned('canned');
  const nginxPort = await freePort();
  const nginx = startNginx(nginxPort, upstream.port);
  await waitHttp(nginxPort, 'nginx');
  const gateways = [await startServe('serve', BIN, values['cpu-prof'], values['node-args'].split(' ').filter(Boolean))];
  if (values.baseline) gateways.push(await startServe('base', path.resolve(values.baseline, 'bin/dynamo-ts.js')));
  const nginxServer: Server = { name: 'nginx', port: nginxPort, pid: nginx.pid, stop: () => nginx.stop() };

  // One unrecorded pass warms every server's JIT, tokenizer and connection pools. The long-prompt
  // path takes seconds to warm (a cold gateway's first 800 requests had a 30-40 ms tail, the next
  // 800 none over 10 ms): with a short pass the first round's p99 is the JIT's.
  for (const s of [ceiling, ...gateways]) {
    await load({ kind: 'stream', port: s.port, pid: s.pid, model: MODEL, ...streamJob, warmupMs: 200, durationMs: 800 });
    await load({ kind: 'ttft', port: s.port, model: MODEL, rate: ttftJob.rate, durationMs: quick ? 1000 : 3000 });
  }

  const stream = new Map<string, StreamFigures[]>();
  const unary = new Map<string, UnaryFigures[]>();
  const ttft = new Map<string, { p50: number; p99: number }[]>();
  const add = <T>(m: Map<string, T[]>, k: string, v: T): void => void (m.get(k) ?? m.set(k, []).get(k)!).push(v);
  const streamers = [ceiling, ...gateways];
  for (let round = 1; round <= rounds; round++) {
    for (const s of workloads.has('stream') ? rotated(streamers, round) : []) {
      const f = await measureStream(s);
      add(stream, s.name, f);
      console.log(
        `round ${round} stream ${s.name.padEnd(7)} tokens/s=${fmt(f.tokensPerSec, 0)} cpu_us_per_token=${fmt(f.cpuMicrosPerToken)} events_per_write=${fmt(f.eventsPerWrite)} events_per_read=${fmt(f.eventsPerRead)}`,
      );
    }
    for (const s of workloads.has('unary') ? rotated([ceiling, ...gateways, nginxServer], round) : []) {
      const u = await measureUnary(s);
      add(unary, s.name, u);
      console.log(`round ${round} unary  ${s.name.padEnd(7)} req/s=${fmt(u.reqPerSec, 0)} cpu_us_per_req=${fmt(u.cpuMicrosPerReq, 0)}`);
    }
    for (const s of workloads.has('ttft') ? rotated(streamers, round) : []) {
      const t = await measureTtft(s);
      add(ttft, s.name, t);
      console.log(`round ${round} ttft   ${s.name.padEnd(7)} p50_ms=${fmt(t.p50)} p99_ms=${fmt(t.p99)}`);
    }
  }
  for (const s of [...gateways, ceiling, upstream, nginxServer]) await s.stop();

  // Ratios are taken per round (the alternatives of a round ran side by side), then the median.
  const perRound = <T>(m: Map<string, T[]>, a: string, b: string, f: (x: T, y: T) => number): number =>
    median((m.get(a) ?? []).map((x, i) => f(x, m.get(b)![i]!)));
  const med = <T>(m: Map<string, T[]>, k: string, f: (x: T) => number): number => median((m.get(k) ?? []).map(f));
  console.log(`\n${rounds} interleaved rounds, ${((performance.now() - started) / 1000).toFixed(0)} s; medians over rounds`);
  console.log('| figure | ceiling | ' + gateways.map((g) => g.name).join(' | ') + ' |');
  console.log('|---|---|' + gateways.map(() => '---|').join(''));
  const row = (name: string, f: (k: string) => string): void => console.log(`| ${name} | ${f('ceiling')} | ${gateways.map((g) => f(g.name)).join(' | ')} |`);
  row(`streamed tokens/s, ${STREAMS} streams`, (k) => fmt(med(stream, k, (x) => x.tokensPerSec), 0));
  row('ratio to the ceiling', (k) => fmt(perRound(stream, k, 'ceiling', (x, y) => x.tokensPerSec / y.tokensPerSec), 3));
  row('server CPU µs per streamed token', (k) => fmt(med(stream, k, (x) => x.cpuMicrosPerToken)));
  row('SSE events per socket write', (k) => fmt(med(stream, k, (x) => x.eventsPerWrite)));
  row('SSE events per client read', (k) => fmt(med(stream, k, (x) => x.eventsPerRead)));
  row('TTFT p50 ms (1k-token prompts, 100 req/s)', (k) => fmt(med(ttft, k, (x) => x.p50)));
  row('TTFT p99 ms', (k) => fmt(med(ttft, k, (x) => x.p99)));
  row('added TTFT p50 / p99 ms', (k) =>
    k === 'ceiling' ? '-' : `${fmt(perRound(ttft, k, 'ceiling', (x, y) => x.p50 - y.p50))} / ${fmt(perRound(ttft, k, 'ceiling', (x, y) => x.p99 - y.p99))}`,
  );
  row('unary req/s (nginx: ' + fmt(med(unary, 'nginx', (x) => x.reqPerSec), 0) + ')', (k) => fmt(med(unary, k, (x) => x.reqPerSec), 0));
  row('unary ratio to nginx', (k) => fmt(perRound(unary, k, 'nginx', (x, y) => x.reqPerSec / y.reqPerSec), 3));
  row('server CPU µs per unary request (nginx: ' + fmt(med(unary, 'nginx', (x) => x.cpuMicrosPerReq), 0) + ')', (k) => fmt(med(unary, k, (x) => x.cpuMicrosPerReq), 0));
  const g = 'serve';
  console.log(
    `sse_tokens_per_s=${fmt(med(stream, g, (x) => x.tokensPerSec), 0)} sse_ratio_vs_ceiling=${fmt(perRound(stream, g, 'ceiling', (x, y) => x.tokensPerSec / y.tokensPerSec), 3)} ` +
      `ttft_added_p50_ms=${fmt(perRound(ttft, g, 'ceiling', (x, y) => x.p50 - y.p50))} ttft_added_p99_ms=${fmt(perRound(ttft, g, 'ceiling', (x, y) => x.p99 - y.p99))} ` +
      `unary_ratio_vs_nginx=${fmt(perRound(unary, g, 'nginx', (x, y) => x.reqPerSec / y.reqPerSec), 3)}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
