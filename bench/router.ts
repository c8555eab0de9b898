// KV-aware routing against round-robin and random, side by side in one run, then disaggregated
// serving (2 prefill + 2 decode mockers behind a prefill router and a decode router) against the
// same 4 mockers aggregated under kv routing, at the same load.
// Four in-process mocker engines with the real timing model (speedup 1 unless --speedup), a router
// (the same PushRouter and policies `serve` uses) and an open-loop multi-turn workload: sessions
// arrive at --rate per second; each picks one of 50 system prompts of 4k tokens, asks 1k-token
// questions, and keeps the conversation (history + answers) for up to 3 turns. Engine KV caches are sized so that the whole prompt set
// does not fit in one worker: reuse depends on sending a prefix back to the worker that has it.
// TTFT = router.generate() to the first output; ITL = the gaps between a request's later outputs.
// The first --warmup requests of each mode are not counted. Usage: node dist/bench/router.js [--requests N] [--rate SESSIONS_PER_S] [--gpu-blocks N] [--speedup X]
import { parseArgs } from 'node:util';
import { buildMockVocabulary, MockerEngine } from '../src/engines/mocker/index.js';
import { loadDefaultModelCard } from '../src/models/index.js';
import { TokenTable } from '../src/pipeline/index.js';
import type { PreprocessedRequest, RouterMode, WorkerType } from '../src/protocols/index.js';
import { buildRouterPolicy, LoadTracker, PushRouter } from '../src/router/index.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '600' },
    warmup: { type: 'string', default: '100' },
    rate: { type: 'string', default: '8' },
    workers: { type: 'string', default: '4' },
    prompts: { type: 'string', default: '50' },
    'prompt-tokens': { type: 'string', default: '4096' },
    'question-tokens': { type: 'string', default: '1024' },
    'output-tokens': { type: 'string', default: '64' },
    'gpu-blocks': { type: 'string', default: '1024' },
    'block-size': { type: 'string', default: '64' },
    speedup: { type: 'string', default: '1' },
  },
});
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
const RATE = Number(values.rate);
const WORKERS = Number(values.workers);
const PROMPTS = Number(values.prompts);
const PROMPT_TOKENS = Number(values['prompt-tokens']);
const QUESTION_TOKENS = Number(values['question-tokens']);
const OUTPUT_TOKENS = Number(values['output-tokens']);
const GPU_BLOCKS = Number(values['gpu-blocks']);
const BLOCK_SIZE = Number(values['block-size']);
const SPEEDUP = Number(values.speedup);
const MAX_TURNS = 3;

function prng(seed: number): () => number {
  // Scramble the seed: xorshift's first outputs for nearby seeds are nearly equal.
  let s = Math.imul(seed ^ (seed >>> 16), 0x45d9f3b) >>> 0 || 1;
  s = Math.imul(s ^ (s >>> 16), 0x45d9f3b) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}
const tokens = (rand: () => number, n: number) => Array.from({ length: n }, () => 1000 + Math.floor(rand() * 100_000));
const promptRand = prng(99);
const systemPrompts = Array.from({ length: PROMPTS }, () => tokens(promptRand, PROMPT_TOKENS));

const card = loadDefaultModelCard();
const vocab = buildMockVocabulary(TokenTable.fromFile(card.tokenizerJsonPath, card.files.tokenizerConfig?.path));

interface ModeResult {
  mode: string;
  ttftMs: number[];
  itlMs: number[];
  seconds: number;
  outputTokens: number;
  requests: number;
  hitRate: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** A router over `workers` fresh mockers of one role, fed their KV events; ids from `firstId`. */
function pool(mode: RouterMode, workers: number, firstId: number, workerType: WorkerType, kv: { overlapScoreCredit?: number } = {}) {
  const load = new LoadTracker();
  const { policy, provides } = buildRouterPolicy(mode, { load, kv: { blockSize: BLOCK_SIZE, ...kv } });
  const router = new PushRouter('bench', policy, { load });
  const sink = workerType === 'decode' ? undefined : provides.kvEvents;
  const engines = Array.from({ length: workers }, (_, i) => {
    const id = BigInt(firstId + i);
    return new MockerEngine({
      vocab,
      numGpuBlocks: GPU_BLOCKS,
      blockSize: BLOCK_SIZE,
      speedupRatio: SPEEDUP,
      workerType,
      onKvEvent: sink ? (e) => sink.applyKvEvent(id, e) : undefined,
    });
  });
  router.setInstances(engines.map((client, i) => ({ id: BigInt(firstId + i), client })));
  return { router, engines, cacheEngines: engines };
}

/** `kv`, `round-robin`, `random`: WORKERS aggregated mockers. `disagg`: half prefill, half decode, both hops kv-routed. */
function cluster(mode: RouterMode | 'disagg') {
  if (mode !== 'disagg') return pool(mode, WORKERS, 1, 'aggregated');
  const prefill = pool('kv', WORKERS / 2, 1, 'prefill');
  // The decode hop routes on load alone, as the frontend builds it.
  const decode = pool('kv', WORKERS / 2, 1 + WORKERS / 2, 'decode', { overlapScoreCredit: 0 });
  decode.router.disaggregation.setPools(prefill.router, true);
  // The prefix cache that matters is the prefill pool's.
  return { router: decode.router, engines: [...prefill.engines, ...decode.engines], cacheEngines: prefill.engines };
}

async function runMode(mode: RouterMode | 'disagg'): Promise<ModeResult> {
  const { router, engines, cacheEngines } = cluster(mode);
  const ttft: number[] = [];
  const itl: number[] = [];
  let issued = 0;
  let outputTokens = 0;
  let measureStart = 0;
  let measureEnd = 0;

  // Open loop: sessions arrive as a Poisson process; a session's turns follow each other at once.
  async function session(index: number): Promise<void> {
    const rand = prng(1234 + index);
    let history = systemPrompts[Math.floor(rand() * PROMPTS)]!;
    const turns = 1 + Math.floor(rand() * MAX_TURNS);
    for (let t = 0; t < turns && issued < REQUESTS; t++) {
      const seq = issued++;
      const prompt = history.concat(tokens(rand, QUESTION_TOKENS));
      const request: PreprocessedRequest = {
        model: 'bench',
        token_ids: prompt,
        stop_conditions: { max_tokens: OUTPUT_TOKENS, ignore_eos: true },
        sampling_options: {},
        output_options: {},
        eos_token_ids: [],
      };
      const start = performance.now();
      let first = 0;
      let last = 0;
      const gaps: number[] = [];
      const answer: number[] = [];
      for await (const out of router.generate(request, { requestId: `${mode}-${seq}`, signal: new AbortController().signal })) {
        const now = performance.now();
        if (first === 0) first = now;
        else gaps.push(now - last);
        last = now;
        answer.push(...out.token_ids);
      }
      if (seq === WARMUP) measureStart = start;
      if (seq >= WARMUP) {
        ttft.push(first - start);
        itl.push(...gaps);
        outputTokens += answer.length;
        measureEnd = Math.max(measureEnd, performance.now());
      }
      history = prompt.concat(answer);
    }
  }

  const arrivals = prng(42);
  const running: Promise<void>[] = [];
  for (let i = 0; issued < REQUESTS; i++) {
    running.push(session(i));
    await new Promise((r) => setTimeout(r, (-Math.log(1 - arrivals()) / RATE) * 1000));
  }
  await Promise.all(running);
  const hitRate = cacheEngines.reduce((s, e) => s + e.stats().gpuPrefixCacheHitRate, 0) / cacheEngines.length;
  for (const e of engines) e.close();
  const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
  return { mode, ttftMs: sorted(ttft), itlMs: sorted(itl), seconds: (measureEnd - measureStart) / 1000, outputTokens, requests: ttft.length, hitRate };
}

console.log(
  `workload: ${RATE} sessions/s (Poisson), ${REQUESTS} requests per mode (${WARMUP} warm-up), ${PROMPTS} system prompts x ${PROMPT_TOKENS} tokens, ` +
    `${QUESTION_TOKENS}-token questions, up to ${MAX_TURNS} turns, ${OUTPUT_TOKENS} output tokens; ` +
    `${WORKERS} mockers x ${GPU_BLOCKS} blocks of ${BLOCK_SIZE}, speedup ${SPEEDUP}`,
);
const results: ModeResult[] = [];
const report = (r: ModeResult, label: string) =>
  console.log(
    `${label.padEnd(22)} TTFT p50 ${percentile(r.ttftMs, 0.5).toFixed(1)} ms  p99 ${percentile(r.ttftMs, 0.99).toFixed(1)} ms  ` +
      `ITL p50 ${percentile(r.itlMs, 0.5).toFixed(1)} ms  p99 ${percentile(r.itlMs, 0.99).toFixed(1)} ms  ` +
      `${(r.requests / r.seconds).toFixed(2)} req/s  ${(r.outputTokens / r.seconds).toFixed(0)} output tok/s  prefix hit rate ${(r.hitRate * 100).toFixed(0)}%`,
  );
for (const mode of ['kv', 'round-robin', 'random', 'disagg'] as const) {
  const r = await runMode(mode);
  results.push(r);
  report(r, mode === 'disagg' ? `disagg ${WORKERS / 2}P+${WORKERS / 2}D (kv)` : mode === 'kv' ? `kv (${WORKERS} aggregated)` : mode);
}
const of = (mode: string) => results.find((r) => r.mode === mode)!;
const p50 = (mode: string) => percentile(of(mode).ttftMs, 0.5);
console.log(`ttft_p50_ratio_random_over_kv=${(p50('random') / p50('kv')).toFixed(2)}`);
console.log(`ttft_p50_ratio_round_robin_over_kv=${(p50('round-robin') / p50('kv')).toFixed(2)}`);
for (const [name, key, p] of [['ttft_p50', 'ttftMs', 0.5], ['ttft_p99', 'ttftMs', 0.99], ['itl_p50', 'itlMs', 0.5], ['itl_p99', 'itlMs', 0.99]] as const) {
  console.log(`${name}_ratio_disagg_over_agg=${(percentile(of('disagg')[key], p) / percentile(of('kv')[key], p)).toFixed(2)}`);
}
