// Preprocessing on the event loop vs on `--dyn-preprocess-workers` threads, side by side in one run.
// 1. Crossover (in this process): chat prompts of growing size through a Preprocessor inline and
//    through one with a 2-thread pool, interleaved A B A B; per request the main thread's CPU time
//    (/proc, this thread only, 10 ms ticks over the whole series) and the wall time.
// 2. TTFT at a fixed rate: two `dynamo-ts serve` children (mocker at a huge speedup, so the engine
//    adds ~nothing), A with preprocessing inline, B with 2 threads (threshold below the prompt), each
//    sent 1k-token streaming prompts at --rate req/s in alternating slices; TTFT p50/p99 and the main
//    thread's CPU per request (/proc, 10 ms ticks).
// Usage: node dist/bench/preprocess-offload.js [--rate 100] [--slice-secs 5] [--rounds 4] [--sizes 250,1000,4000,16000,64000]
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadDefaultModelCard } from '../src/models/index.js';
import { HfTokenizer, Preprocessor, PreprocessPool, validateChatRequest } from '../src/pipeline/index.js';
import { freePort, startProcess, waitForModel } from '../test/support/processes.js';
import { streamChat } from './support/sse-client.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '100' },
    'slice-secs': { type: 'string', default: '5' },
    rounds: { type: 'string', default: '4' },
    sizes: { type: 'string', default: '250,1000,4000,16000,64000' },
    'per-size': { type: 'string', default: '40' },
  },
});
const MODEL = 'Qwen/Qwen3-0.6B';
const ROUNDS = Number(values.rounds);

/** Varied English-like text of about `chars` characters, unique per `seed` from its first word. */
function prose(chars: number, seed: number): string {
  const words = ['river', 'stone', 'quietly', 'market', 'seven', 'lantern', 'engine', 'north', 'bright', 'paper', 'garden', 'slowly'];
  let out = `Request ${seed}.`;
  for (let i = 0; out.length < chars; i++) out += ` ${words[(i * 7 + seed) % words.length]}${i % 13 === 0 ? '.' : ''}`;
  return out;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function crossover(): Promise<void> {
  const card = loadDefaultModelCard();
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  const pool = new PreprocessPool(2, 0);
  const inline = new Preprocessor(card, tokenizer);
  const pooled = new Preprocessor(card, tokenizer, { pool });
  const perSize = Number(values['per-size']);
  console.log('1. crossover: main-thread CPU ms / request and wall ms / request (sequential requests)');
  console.log('chars   tokens   inline loop   pool loop   inline wall   pool wall');
  for (const chars of values.sizes!.split(',').map(Number)) {
    const sums = { inline: { loop: 0, wall: 0 }, pool: { loop: 0, wall: 0 } };
    let tokens = 0;
    // Warm both paths (the pool threads load the tokenizer on first use).
    for (const pre of [inline, pooled]) await pre.preprocessChat(validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: prose(chars, 0) }] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, pre] of [['inline', inline], ['pool', pooled]] as const) {
        const cpu = loopCpuMs(process.pid);
        const started = performance.now();
        for (let i = 0; i < perSize; i++) {
          const prepared = await pre.preprocessChat(validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: prose(chars, round * 1000 + i) }] }));
          tokens = prepared.promptTokens;
        }
        sums[name].wall += performance.now() - started;
        sums[name].loop += loopCpuMs(process.pid) - cpu;
      }
    }
    const n = perSize * ROUNDS;
    const f = (x: number) => (x / n).toFixed(3).padStart(11);
    console.log(`${String(chars).padStart(5)}   ${String(tokens).padStart(6)}   ${f(sums.inline.loop)}   ${f(sums.pool.loop)}   ${f(sums.inline.wall)}   ${f(sums.pool.wall)}`);
  }
  await pool.close();
}

/** Main-thread CPU of a process so far, ms (10 ms ticks). */
function loopCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function ttft(): Promise<void> {
  const rate = Number(values.rate);
  const sliceMs = Number(values['slice-secs']) * 1000;
  const servers = await Promise.all(
    [
      { name: 'inline', args: [] as string[], env: {} as Record<string, string> },
      { name: 'threads', args: ['--dyn-preprocess-workers', '2'], env: { DYN_PREPROCESS_MIN_CHARS: '1000' } },
    ].map(async (s) => {
      const port = await freePort();
      const proc = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000000000', ...s.args], s.env);
      await waitForModel(`http://127.0.0.1:${port}`, MODEL, proc, 120_000);
      return { ...s, port, proc, agent: new http.Agent({ keepAlive: true, maxSockets: 256 }), ttfts: [] as number[], cpu: 0, sent: 0, failed: 0 };
    }),
  );
  const body = (seed: number) =>
    JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: prose(4600, seed) }], max_tokens: 2, stream: true });
  let seed = 1;
  for (const s of servers) for (let i = 0; i < 20; i++) await streamChat(s.port, body(seed++), s.agent);
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of servers) {
      const cpuBefore = loopCpuMs(s.proc.proc.pid!);
      const started = performance.now();
      const inFlight: Promise<void>[] = [];
      // Open loop: one request every 1000/rate ms, whatever the answers do.
      for (let i = 0; performance.now() - started < sliceMs; i++) {
        const due = started + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        s.sent++;
        inFlight.push(
          streamChat(s.port, body(seed++), s.agent).then(
            (t) => void (t.tokens > 0 ? s.ttfts.push(t.ttftMs) : s.failed++),
            () => void s.failed++,
          ),
        );
      }
      await Promise.all(inFlight);
      s.cpu += loopCpuMs(s.proc.proc.pid!) - cpuBefore;
    }
  }
  console.log(`2. TTFT of ~1k-token streaming prompts at ${rate} req/s (${ROUNDS} alternating slices of ${sliceMs / 1000} s each)`);
  console.log('server    requests  failed   TTFT p50 ms   p99 ms   max ms   main-thread CPU ms/request');
  for (const s of servers) {
    console.log(
      `${s.name.padEnd(9)} ${String(s.sent).padStart(8)}  ${String(s.failed).padStart(6)}   ${percentile(s.ttfts, 50).toFixed(2).padStart(11)}   ${percentile(s.ttfts, 99).toFixed(2).padStart(6)}   ${Math.max(...s.ttfts).toFixed(1).padStart(6)}   ${(s.cpu / s.sent).toFixed(3).padStart(10)}`,
    );
  }
  for (const s of servers) {
    s.agent.destroy();
    await s.proc.stop();
  }
}

async function main(): Promise<void> {
  console.log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  await crossover();
  await ttft();
  console.log(`load average at end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
