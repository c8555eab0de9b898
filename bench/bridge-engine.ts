// The bridge engine's own cost per request, without the frontend around it: OpenAiBridgeEngine in
// this process calls the canned OpenAI-compatible server (bench/support/canned-openai.ts, a child
// process) with `concurrency` requests at a time, each a token-in call answered with `--tokens`
// streamed ids, and reads this process's CPU time per request. Rounds alternate this build with
// the builds given by --other (checkouts with their own dist/), each in a process of its own, each
// round starting one build further along.
// --unary: each request says its client awaits one answer (PreprocessedRequest.unary), as a
// non-streaming HTTP request's does: a build that knows it asks the server for the answer whole.
// --latency: instead, one call at a time (--prompt 1000 for the TTFT prompts), the time from
// `generate` to the first output, beside the same request's first event read off a bare kept-alive
// socket (the upstream hop's floor), so the difference is the engine's own added latency.
// Usage: node dist/bench/bridge-engine.js [--rounds N] [--seconds S] [--tokens N] [--prompt N] [--unary] [--latency] [--other DIR ...]
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../test/support/processes.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    tokens: { type: 'string', default: '8' },
    prompt: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '64' },
    latency: { type: 'boolean', default: false },
    unary: { type: 'boolean', default: false },
    other: { type: 'string', multiple: true, default: [] },
    // Internal: run the measurement of the build at this dist/ against this upstream port.
    measure: { type: 'string' },
    port: { type: 'string' },
  },
});

interface EngineModule {
  OpenAiBridgeEngine: new (o: Record<string, unknown>) => { generate(req: unknown, ctx: unknown): AsyncIterable<{ token_ids: number[] }> };
}

/** One build's measurement, in this process: warm-up, then CPU per request over the window. */
async function measure(dist: string, port: number): Promise<void> {
  const mod = (await import(pathToFileURL(path.join(dist, 'src/engines/openai-bridge/index.js')).href)) as EngineModule;
  const engine = new mod.OpenAiBridgeEngine({
    url: `http://127.0.0.1:${port}`,
    model: 'canned',
    input: 'tokens',
    tokenizer: { encode: async () => [], decode: async () => '' },
    responseTimeoutMs: 60_000,
  });
  // Ids as the tokenizer gives a prompt it has seen (a prefix-cache hit): a holey array (see request-bytes.ts).
  const prompt = new Array<number>(Number(values.prompt));
  for (let i = 0; i < prompt.length; i++) prompt[i] = 1000 + ((i * 7919) % 150_000);
  const unary = values.unary ? { unary: true } : {};
  const request = () => ({ token_ids: prompt, stop_conditions: { max_tokens: Number(values.tokens), ignore_eos: true }, sampling_options: { temperature: 0.7 }, output_options: {}, ...unary });
  let requests = 0;
  const one = async (): Promise<void> => {
    const signal = new AbortController().signal;
    for await (const _ of engine.generate(request(), { requestId: 'bench', signal })) void _;
    requests++;
  };
  const run = async (ms: number): Promise<void> => {
    const until = performance.now() + ms;
    await Promise.all(Array.from({ length: Number(values.concurrency) }, async () => {
      while (performance.now() < until) await one();
    }));
  };
  if (values.latency) return measureLatency(engine, request, port);
  await run(1500);
  requests = 0;
  const cpu = process.cpuUsage();
  await run(Number(values.seconds) * 1000);
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ requests, cpuMicrosPerRequest: (used.user + used.system) / requests })}\n`);
  process.exit(0);
}

type Engine = InstanceType<EngineModule['OpenAiBridgeEngine']>;

/** Alternating calls through the engine and bare socket requests of the same body, one at a time: medians and p99s. */
async function measureLatency(engine: Engine, request: () => Record<string, unknown>, port: number): Promise<void> {
  const viaEngine = async (): Promise<number> => {
    const t0 = performance.now();
    const it = engine.generate(request(), { requestId: 'bench', signal: new AbortController().signal })[Symbol.asyncIterator]();
    await it.next();
    const t = performance.now() - t0;
    await it.return?.();
    return t;
  };
  // The body the engine sends (as upstream-request.ts builds it), on a connection kept across calls.
  const req = request() as { token_ids: number[] };
  const body = JSON.stringify({ model: 'canned', stream: true, stream_options: { include_usage: true }, max_tokens: Number(values.tokens), ignore_eos: true, temperature: 0.7, prompt: req.token_ids, return_token_ids: true });
  const head = `POST /v1/completions HTTP/1.1\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  await new Promise((resolve) => socket.once('connect', resolve));
  // One request at a time on the kept socket: the first bytes with an event, then the chunked body's end.
  const bare = (): Promise<number> =>
    new Promise((resolve) => {
      let first = -1;
      let tail = '';
      const t0 = performance.now();
      const onData = (d: Buffer): void => {
        if (first < 0 && d.includes('data:')) first = performance.now() - t0;
        tail = (tail + d.toString('latin1')).slice(-16);
        if (first >= 0 && tail.endsWith('\r\n0\r\n\r\n')) {
          socket.off('data', onData);
          resolve(first);
        }
      };
      socket.on('data', onData);
      socket.write(head + body);
    });
  const engineMs: number[] = [];
  const bareMs: number[] = [];
  const until = performance.now() + Number(values.seconds) * 1000;
  for (let i = 0; performance.now() < until || i < 20; i++) {
    const e = await viaEngine();
    const b = await bare();
    if (i >= 20) engineMs.push(e), bareMs.push(b);
  }
  const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  socket.destroy();
  process.stdout.write(`${JSON.stringify({ requests: engineMs.length, engineP50: pct(engineMs, 50), engineP99: pct(engineMs, 99), bareP50: pct(bareMs, 50), bareP99: pct(bareMs, 99) })}\n`);
  process.exit(0);
}

function runChild(args: string[]): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`)))));
}

async function main(): Promise<void> {
  const port = await freePort();
  const canned = spawn(process.execPath, [path.join(HERE, 'support/canned-openai.js'), String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => canned.stdout!.once('data', resolve));
  const builds = [path.resolve(HERE, '..'), ...values.other.map((d) => path.resolve(d, 'dist'))];
  const results = new Map<string, number[]>(builds.map((b) => [b, []]));
  try {
    for (let round = 1; round <= Number(values.rounds); round++) {
      // Each round starts with the next build: none always runs first (after the upstream's idle time).
      for (const dist of builds.map((_, i) => builds[(i + round - 1) % builds.length]!)) {
        const args = [fileURLToPath(import.meta.url), '--measure', dist, '--port', String(port), '--seconds', values.seconds, '--tokens', values.tokens, '--prompt', values.prompt, '--concurrency', values.concurrency];
        if (values.unary) args.push('--unary');
        if (values.latency) {
          const r = JSON.parse((await runChild([...args, '--latency'])).trim()) as { requests: number; engineP50: number; engineP99: number; bareP50: number; bareP99: number };
          const ms = (x: number): string => x.toFixed(3);
          results.get(dist)!.push(r.engineP50 - r.bareP50);
          console.log(`round ${round} ${dist}: ${r.requests} calls, first output p50 ${ms(r.engineP50)} p99 ${ms(r.engineP99)} ms, bare socket p50 ${ms(r.bareP50)} p99 ${ms(r.bareP99)} ms, load ${loadavg()[0]!.toFixed(1)}`);
          continue;
        }
        const out = await runChild(args);
        const r = JSON.parse(out.trim()) as { requests: number; cpuMicrosPerRequest: number };
        results.get(dist)!.push(r.cpuMicrosPerRequest);
        console.log(`round ${round} ${dist}: ${r.requests} requests, ${r.cpuMicrosPerRequest.toFixed(1)} µs CPU per request, load ${loadavg()[0]!.toFixed(1)}`);
      }
    }
  } finally {
    canned.kill('SIGTERM');
  }
  const mine = results.get(builds[0]!)!;
  for (const dist of builds.slice(1)) {
    const ratios = mine.map((x, i) => x / results.get(dist)![i]!).map((r) => r.toFixed(2));
    console.log(`this build / ${dist}: ${ratios.join(', ')} per round`);
  }
}

if (values.measure) await measure(values.measure, Number(values.port));
else await main();
