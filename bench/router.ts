// KV-aware routing against round-robin and random, side by side in one run.
// Four in-process mocker engines with the real timing model (speedup 1 unless --speedup), a router
// (the same PushRouter and policies `serve` uses) and an open-loop multi-turn workload: sessions
// arrive at --rate per second; each picks one of 50 system prompts of 4k tokens, asks 1k-token
// questions, and keeps the conversation (history + answers) for up to 3 turns. Engine KV caches are sized so that the whole prompt set
// does not fit in one worker: reuse depends on sending a prefix back to the worker that has it.
// TTFT = router.generate() to the first output. The first --warmup requests of each mode are not
// counted. Usage: node dist/bench/router.js [--requests N] [--rate SESSIONS_PER_S] [--gpu-blocks N] [--speedup X]
import { parseArgs } from 'node:util';
import { buildMockVocabulary, MockerEngine } from '../src/engines/mocker/index.js';
import { loadDefaultModelCard } from '../src/models/index.js';
import { TokenTable } from '../src/pipeline/index.js';
import type { PreprocessedRequest, RouterMode } from '../src/protocols/index.js';
import { createRouterPolicy, LoadTracker, PushRouter } from '../src/router/index.js';

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
  mode: RouterMode;
  ttftMs: number[];
  seconds: number;
  outputTokens: number;
  requests: number;
  hitRate: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function runMode(mode: RouterMode): Promise<ModeResult> {
  const load = new LoadTracker();
  const policy = createRouterPolicy(mode, { load, kv: { blockSize: BLOCK_SIZE } });
  const router = new PushRouter('bench', policy, { load });
  const kv = policy.kvEvents;
  const engines = Array.from({ length: WORKERS }, (_, i) => {
    const id = BigInt(i + 1);
    return new MockerEngine({
      vocab,
      numGpuBlocks: GPU_BLOCKS,
      blockSize: BLOCK_SIZE,
      speedupRatio: SPEEDUP,
      onKvEvent: kv ? (e) => kv.applyKvEvent(id, e) : undefined,
    });
  });
  router.setInstances(engines.map((client, i) => ({ id: BigInt(i + 1), client })));

  const ttft: number[] = [];
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
      const answer: number[] = [];
      for await (const out of router.generate(request, { requestId: `${mode}-${seq}`, signal: new AbortController().signal })) {
        if (first === 0) first = performance.now();
        answer.push(...out.token_ids);
      }
      if (seq === WARMUP) measureStart = start;
      if (seq >= WARMUP) {
        ttft.push(first - start);
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
  const hitRate = engines.reduce((s, e) => s + e.stats().gpuPrefixCacheHitRate, 0) / engines.length;
  for (const e of engines) e.close();
  return { mode, ttftMs: ttft.sort((a, b) => a - b), seconds: (measureEnd - measureStart) / 1000, outputTokens, requests: ttft.length, hitRate };
}

console.log(
  `workload: ${RATE} sessions/s (Poisson), ${REQUESTS} requests per mode (${WARMUP} warm-up), ${PROMPTS} system prompts x ${PROMPT_TOKENS} tokens, ` +
    `${QUESTION_TOKENS}-token questions, up to ${MAX_TURNS} turns, ${OUTPUT_TOKENS} output tokens; ` +
    `${WORKERS} mockers x ${GPU_BLOCKS} blocks of ${BLOCK_SIZE}, speedup ${SPEEDUP}`,
);
const results: ModeResult[] = [];
for (const mode of ['kv', 'round-robin', 'random'] as const) {
  const r = await runMode(mode);
  results.push(r);
  console.log(
    `${mode.padEnd(12)} TTFT p50 ${percentile(r.ttftMs, 0.5).toFixed(1)} ms  p99 ${percentile(r.ttftMs, 0.99).toFixed(1)} ms  ` +
      `${(r.requests / r.seconds).toFixed(2)} req/s  ${(r.outputTokens / r.seconds).toFixed(0)} output tok/s  prefix hit rate ${(r.hitRate * 100).toFixed(0)}%`,
  );
}
const p50 = (mode: string) => percentile(results.find((r) => r.mode === mode)!.ttftMs, 0.5);
console.log(`ttft_p50_ratio_random_over_kv=${(p50('random') / p50('kv')).toFixed(2)}`);
console.log(`ttft_p50_ratio_round_robin_over_kv=${(p50('round-robin') / p50('kv')).toFixed(2)}`);
