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
import { execFileSync } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMicros, median } from './support/cpu-time.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, baseline: { type: 'string' }, child: { type: 'string' } },
});
const HERE = path.dirname(fileURLToPath(import.meta.url));
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

/** bench/compare.ts's ttft prompt `i`. */
function longPrompt(i: number): string {
  const sentences: string[] = [];
  for (let s = 0; s < 77; s++) sentences.push(`Report ${i}-${s}: the quick brown fox jumps over the lazy dog.`);
  return sentences.join(' ');
}

/** One checkout's figures, measured in this process from its dist/ (the `--child` side). */
async function measure(root: string): Promise<Figures> {
  const load = <T>(rel: string): Promise<T> => import(pathToFileURL(path.join(root, 'dist/src', rel)).href) as Promise<T>;
  const models = await load<typeof import('../src/models/index.js')>('models/index.js');
  const pre = await load<typeof import('../src/pipeline/preprocess/index.js')>('pipeline/preprocess/index.js');
  const files = await load<typeof import('../src/pipeline/preprocess/tokenizer/tokenizer-file.js')>('pipeline/preprocess/tokenizer/tokenizer-file.js');
  const mocker = await load<typeof import('../src/engines/mocker/index.js')>('engines/mocker/index.js');
  const tables = await load<typeof import('../src/models/assembly/token-tables.js')>('models/assembly/token-tables.js');
  const card = models.loadDefaultModelCard();
  const cache = new pre.PrefixTokenCache(files.tokenizerFile(card.tokenizerJsonPath).boundaryTokens, 64 * 1024 * 1024, 1024);
  const tokenizer = new pre.HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
  const template = new pre.ChatTemplate(card);
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

if (values.child !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(values.child))}\n`);
  process.exit(0);
}

const checkouts: [string, string][] = [['this', path.resolve(HERE, '..', '..')]];
if (values.baseline) checkouts.push(['baseline', path.resolve(values.baseline)]);
const rounds = Number(values.rounds);
const results = new Map<string, Figures[]>(checkouts.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < checkouts.length; k++) {
    const [name, root] = checkouts[(r + k) % checkouts.length]!;
    const out = execFileSync(process.execPath, ['--max-semi-space-size=32', '--expose-gc', fileURLToPath(import.meta.url), '--child', root], { encoding: 'utf8' });
    const figures = JSON.parse(out.trim().split('\n').at(-1)!) as Figures;
    results.get(name)!.push(figures);
    console.log(`round ${r + 1} ${name.padEnd(8)} ${JSON.stringify(figures, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toFixed(2)) : v))}`);
  }
}
const rows: [string, keyof Figures][] = [
  ['long prompt: CPU µs per prompt (template + tokenizer + prefix cache)', 'longUs'],
  [`long prompts: young-generation collections in ${LONG_PROMPTS}`, 'scavenges'],
  ['long prompts: their total pause ms', 'scavengeMs'],
  ['long prompts: the longest pause ms', 'longestScavengeMs'],
  ['long prompts: heap bytes held per prompt', 'keptBytesPerPrompt'],
  ['small chat: validation + preprocessing CPU µs', 'preprocessUs'],
  ['small chat: mocker CPU µs (8 tokens)', 'mockerUs'],
];
console.log(`\n${rounds} rounds, medians\n| figure | ${checkouts.map(([n]) => n).join(' | ')} |\n|---|${checkouts.map(() => '---|').join('')}`);
for (const [label, key] of rows) {
  console.log(`| ${label} | ${checkouts.map(([n]) => median(results.get(n)!.map((f) => f[key])).toFixed(key === 'scavenges' ? 0 : 1)).join(' | ')} |`);
}
