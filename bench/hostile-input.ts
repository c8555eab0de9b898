// Hostile requests against `dynamo-ts serve` in a child process while a light client pings a cheap
// route (GET /health, one at a time, keep-alive, on a thread of its own so the bench's own work is
// not counted): per phase, the worst ping latency (how long any other client waited behind the
// hostile work), the server's own worst event-loop delay (prom-client's
// `nodejs_eventloop_lag_max_seconds`, reset by each scrape, 10 ms resolution), the server's RSS
// afterwards, and the CPU time its
// main thread spent per hostile request (what the event loop was held for on a quiet machine,
// whatever the neighbours do to the wall clock; the pings' own share, measured idle, is taken off;
// 10 ms resolution).
// Phases: deep nesting (100k levels), 100k messages, messages at the limit, 40 MB prompts, slow
// bodies, then idle pauses and the final RSS against the baseline. Pings: the worst and the 99th
// percentile per phase.
// With --baseline DIR (another checkout, built), that build's `serve` runs beside this one and each
// phase runs on the baseline, then on this build, so the two are compared in the same run.
// Servers start with the malloc settings of `npm start` and the image (src/launch/malloc-tuning.ts)
// unless --untuned-malloc, and with the node flags of their checkout's `npm start`.
// Usage: node dist/bench/hostile-input.js [--prompt-mb 40] [--repeat 5] [--baseline DIR] [--untuned-malloc] [--server-arg=--max-prompt-chars=...]...
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mallocTuningFor } from '../src/launch/malloc-tuning.js';
import { freePort, REPO_ROOT, startProcess, waitForModel } from '../test/support/processes.js';
import { npmStartShape } from './support/npm-start.js';
import { PingThread } from './support/ping-thread.js';

const { values } = parseArgs({
  options: {
    'prompt-mb': { type: 'string', default: '40' },
    repeat: { type: 'string', default: '5' },
    'limit-messages': { type: 'string', default: '4096' },
    'server-arg': { type: 'string', multiple: true, default: [] },
    baseline: { type: 'string' },
    'untuned-malloc': { type: 'boolean', default: false },
  },
});
const PROMPT_MB = Number(values['prompt-mb']);
const REPEAT = Number(values.repeat);
const LIMIT_MESSAGES = Number(values['limit-messages']);
const MODEL = 'Qwen/Qwen3-0.6B';
const BODY_TIMEOUT_SECS = 2;

/** CPU time of the server's main thread (the event loop) so far, in ms: clock ticks of 10 ms. */
function loopCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** The server's own event-loop delay, worst since the last scrape (prom-client resets it on each), in ms. */
async function serverLoopMaxMs(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  const text = await res.text();
  return Number(/^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1] ?? Number.NaN) * 1000;
}

function post(port: number, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A connection that sends half a body and goes quiet; resolves with the status the server sent, when it closes. */
function slowBody(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('connect', () =>
      socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":'),
    );
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(received.slice(9, 12)) || 0));
  });
}

const chat = (messages: unknown[], extra = '') => `{"model":"${MODEL}","messages":${JSON.stringify(messages)},"max_tokens":1${extra}}`;
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

interface Target {
  name: string;
  port: number;
  pid: number;
  pinger: PingThread;
  /** What the pings alone cost the loop per ms, taken off each phase's figure. */
  pingCpuPerMs: number;
  baseline: number;
  stop(): Promise<unknown>;
}

async function startTarget(name: string, bin: string | undefined, serverArgs: string[]): Promise<Target> {
  const port = await freePort();
  const checkout = bin ? path.resolve(path.dirname(bin), '..') : REPO_ROOT;
  const server = startProcess(
    ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000', ...serverArgs],
    { DYN_HTTP_BODY_TIMEOUT_SECS: String(BODY_TIMEOUT_SECS), ...(values['untuned-malloc'] ? {} : mallocTuningFor(process.env)) },
    bin,
    npmStartShape(checkout).nodeArgs,
  );
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, server);
  const pid = server.proc.pid!;
  for (let i = 0; i < 20; i++) await post(port, Buffer.from(chat([{ role: 'user', content: `warm up ${i}` }])));
  // The loop's worst delay so far is the start-up's; this scrape forgets it.
  await serverLoopMaxMs(port);
  return { name, port, pid, pinger: new PingThread(port), pingCpuPerMs: 0, baseline: 0, stop: () => server.stop() };
}

async function main(): Promise<void> {
  const serverArgs = values['server-arg'] as string[];
  // Every body is built before the servers start: building and encoding a 40 MB body holds the
  // bench's own loop for a few hundred ms, which is no server's doing.
  const bodies = {
    nested: Buffer.from(`${chat([{ role: 'user', content: 'hi' }]).slice(0, -1)},"logit_bias":{"5":${deep(100_000)}}}`),
    many: Buffer.from(chat(Array.from({ length: 100_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` })))),
    atLimit: Buffer.from(chat(Array.from({ length: LIMIT_MESSAGES }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` })))),
    huge: Buffer.from(chat([{ role: 'user', content: 'word '.repeat((PROMPT_MB * 1024 * 1024) / 5) }])),
  };
  const targets: Target[] = [];
  if (values.baseline) targets.push(await startTarget('baseline', path.join(path.resolve(values.baseline), 'bin/dynamo-ts.js'), serverArgs));
  targets.push(await startTarget('this build', undefined, serverArgs));
  await new Promise((r) => setTimeout(r, 3000));
  const idleCpu = targets.map((t) => loopCpuMs(t.pid));
  const idleStarted = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  targets.forEach((t, i) => {
    t.pingCpuPerMs = (loopCpuMs(t.pid) - idleCpu[i]!) / (performance.now() - idleStarted);
    t.baseline = rssMb(t.pid);
  });
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`server args: ${serverArgs.join(' ') || '(defaults)'}; prompt ${PROMPT_MB} MB x ${REPEAT}; load average ${load()}`);
  console.log(
    `server       phase                          statuses              ping worst / p99 ms   server loop max ms   RSS MB   loop CPU ms/request`,
  );
  const row = async (t: Target, name: string, summary: string, extra = ''): Promise<void> => {
    const loopMax = await serverLoopMaxMs(t.port);
    const pings = await t.pinger.take();
    const waits = `${pings.worst.toFixed(1)} / ${pings.p99.toFixed(1)}`;
    console.log(
      `${t.name.padEnd(12)} ${name.padEnd(30)} ${summary.padEnd(21)} ${waits.padStart(19)}   ${loopMax.toFixed(1).padStart(18)}   ${rssMb(t.pid).toFixed(0).padStart(6)}   ${extra.padStart(19)}`,
    );
  };
  for (const t of targets) await row(t, 'idle baseline', '-');

  const phase = async (name: string, run: (port: number) => Promise<number[]>): Promise<void> => {
    for (const t of targets) {
      await serverLoopMaxMs(t.port);
      await t.pinger.take();
      const cpuBefore = loopCpuMs(t.pid);
      const started = performance.now();
      const statuses = await run(t.port);
      const pingCpu = t.pingCpuPerMs * (performance.now() - started);
      const cpuPerRequest = Math.max(0, loopCpuMs(t.pid) - cpuBefore - pingCpu) / statuses.length;
      const counts = new Map<number, number>();
      for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
      await row(t, name, [...counts].map(([s, n]) => `${n}x${s}`).join(' '), cpuPerRequest.toFixed(0));
    }
  };
  const times = async (n: number, one: () => Promise<number>): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await one());
    return out;
  };

  await phase('logit_bias nested 100k deep', (port) => times(REPEAT, () => post(port, bodies.nested)));
  await phase('100k messages', (port) => times(REPEAT, () => post(port, bodies.many)));
  await phase(`${LIMIT_MESSAGES} messages (at the limit)`, (port) => times(REPEAT, () => post(port, bodies.atLimit)));
  await phase(`${PROMPT_MB} MB prompt`, (port) => times(REPEAT, () => post(port, bodies.huge)));
  await phase('100 slow bodies', (port) => Promise.all(Array.from({ length: 100 }, () => slowBody(port))));
  // V8 gives memory back to the system on its own schedule once the process is quiet.
  let idle = 0;
  for (const secs of [10, 30, 60]) {
    await new Promise((r) => setTimeout(r, (secs - idle) * 1000));
    idle = secs;
    for (const t of targets) await row(t, `idle ${secs} s after the drill`, '-');
  }
  for (const t of targets) console.log(`${t.name}: RSS after/baseline ${(rssMb(t.pid) / t.baseline).toFixed(2)}`);
  console.log(`load average at end: ${load()}`);
  for (const t of targets) {
    await t.pinger.stop();
    await t.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
