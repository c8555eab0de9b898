// The bridge engine's own cost per request, without the frontend around it: OpenAiBridgeEngine in
// this process calls the canned OpenAI-compatible server (bench/support/canned-openai.ts, a child
// process) with `concurrency` requests at a time, each a token-in call answered with `--tokens`
// streamed ids, and reads this process's CPU time per request. Rounds alternate this build with
// the builds given by --other (checkouts with their own dist/), each in a process of its own.
// Usage: node dist/bench/bridge-engine.js [--rounds N] [--seconds S] [--tokens N] [--prompt N] [--other DIR ...]
import { spawn, type ChildProcess } from 'node:child_process';
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
  const prompt = Array.from({ length: Number(values.prompt) }, (_, i) => 1000 + i);
  const request = () => ({ token_ids: prompt, stop_conditions: { max_tokens: Number(values.tokens), ignore_eos: true }, sampling_options: { temperature: 0.7 }, output_options: {} });
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
  await run(1500);
  requests = 0;
  const cpu = process.cpuUsage();
  await run(Number(values.seconds) * 1000);
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ requests, cpuMicrosPerRequest: (used.user + used.system) / requests })}\n`);
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
      for (const dist of builds) {
        const out = await runChild([fileURLToPath(import.meta.url), '--measure', dist, '--port', String(port), '--seconds', values.seconds, '--tokens', values.tokens, '--prompt', values.prompt, '--concurrency', values.concurrency]);
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
