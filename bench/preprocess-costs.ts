// What preprocessing and the mocker cost per request, this checkout beside another (--baseline),
// each round in a fresh child process per checkout (A B, B A, ...), with `npm start`'s young
// generation (--max-semi-space-size=32):
//   long:  ~1k-token chat prompts, each new (bench/compare.ts's ttft prompts): chat template and
//          tokenizer with the default prefix cache (64 MiB, prompts from 1,024 characters), CPU µs per
//          prompt, young-generation collections (count, total and longest pause) over the run, and
//          heap bytes still held per prompt after a full collection (what the cache keeps);
//   small: `bench/compare.ts`'s small unary chat: validation and preprocessing, CPU µs per request;
//          then the mocker generating its 8 tokens, 64 requests at a time, CPU µs per request.
// Usage: node dist/bench/preprocess-costs.js [--rounds N] [--baseline DIR]
import { setMaxListeners } from 'node:events';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { checkoutModule, compareCheckouts, longPrompt, printMedians, servedTokenizer } from './support/checkouts.js';
import { cpuMicros } from './support/cpu-time.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, baseline: { type: 'string' }, child: { type: 'string' } },
});
const LONG_PROMPTS = 1500;
const SMALL_REQUESTS = 3000;
const CONCURRENCY = 64;

interface Figures {
  longUs: number;
  scavenges: number;
  scavengeMs: number;
  longestScavengeMs: number;
  keptBytesPerPrompt: number;
  preprocessUs: number;
  mockerUs: number;
}

/** One checkout's figures, measured in this process from its dist/ (the `--child` side). */
async function measure(root: string): Promise<Figures> {
  const { card, pre, tokenizer, template } = await servedTokenizer(root);
  const mocker = await checkoutModule<typeof import('../src/engines/mocker/index.js')>(root, 'engines/mocker/index.js');
  const tables = await checkoutModule<typeof import('../src/models/assembly/token-tables.js')>(root, 'models/assembly/token-tables.js');
  const preprocessor = new pre.Preprocessor(card, tokenizer);

  const longChat = async (i: number): Promise<void> => {
    const request = JSON.parse(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: longPrompt(i) }] }));
    await tokenizer.encode(template.render(request), false);
  };
  for (let i = 0; i < 100; i++) await longChat(-1 - i);
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.push(e.duration);
    }
  });
  const gc = globalThis.gc!;
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  observer.observe({ entryTypes: ['gc'] });
  let started = cpuMicros();
  for (let i = 0; i < LONG_PROMPTS; i++) await longChat(i);
  const longUs = (cpuMicros() - started) / LONG_PROMPTS;
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  gc();
  const keptBytesPerPrompt = (process.memoryUsage().heapUsed - heapBefore) / LONG_PROMPTS;

  const body = JSON.stringify({ model: card.displayName, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8, ignore_eos: true });
  const smallChats = async (): Promise<import('../src/protocols/index.js').PreprocessedRequest[]> => {
    const out = [];
    for (let i = 0; i < SMALL_REQUESTS; i++) out.push((await preprocessor.preprocessChat(preprocessor.validateChat(JSON.parse(body)))).request);
    return out;
  };
  await smallChats();
  started = cpuMicros();
  const requests = await smallChats();
  const preprocessUs = (cpuMicros() - started) / SMALL_REQUESTS;

  const vocab = mocker.buildMockVocabulary(tables.sharedTokenTable(card.tokenizerJsonPath, card.files.tokenizerConfig?.path));
  const engine = new mocker.MockerEngine({ vocab, speedupRatio: 1e9 });
  const signal = new AbortController().signal;
  // One signal for every request in flight (each adds its listener).
  setMaxListeners(0, signal);
  let id = 0;
  const generateAll = async (): Promise<void> => {
    for (let i = 0; i < requests.length; i += CONCURRENCY) {
      const batch = requests.slice(i, i + CONCURRENCY).map(async (request) => {
        for await (const out of engine.generate(request, { requestId: `r${id++}`, signal })) void out;
      });
      await Promise.all(batch);
    }
  };
  await generateAll();
  started = cpuMicros();
  await generateAll();
  const mockerUs = (cpuMicros() - started) / requests.length;
  engine.close();
  pauses.sort((a, b) => a - b);
  return {
    longUs,
    scavenges: pauses.length,
    scavengeMs: pauses.reduce((a, b) => a + b, 0),
    longestScavengeMs: pauses.at(-1) ?? 0,
    keptBytesPerPrompt,
    preprocessUs,
    mockerUs,
  };
}

const results = await compareCheckouts(import.meta.url, values, ['--max-semi-space-size=32', '--expose-gc'], measure);
printMedians<Figures>(
  `${values.rounds} rounds, medians`,
  [
    ['long prompt: CPU µs per prompt (template + tokenizer + prefix cache)', 'longUs'],
    [`long prompts: young-generation collections in ${LONG_PROMPTS}`, 'scavenges'],
    ['long prompts: their total pause ms', 'scavengeMs'],
    ['long prompts: the longest pause ms', 'longestScavengeMs'],
    ['long prompts: heap bytes held per prompt', 'keptBytesPerPrompt'],
    ['small chat: validation + preprocessing CPU µs', 'preprocessUs'],
    ['small chat: mocker CPU µs (8 tokens)', 'mockerUs'],
  ],
  results,
  (key) => (key === 'scavenges' ? 0 : 1),
);
