// A long chat prompt through the tokenizer as the preprocessor calls it (encodeNow, else encode),
// with the default prefix cache, this checkout beside another (--baseline), each round in a fresh
// child process per checkout (A B, B A, ...):
//   hit:  prompts seen before (bench/compare.ts's ttft job sends the same prompts every round);
//   miss: prompts never seen (each different from its first word on);
// CPU µs per prompt, and bytes allocated per prompt (a sampling heap profile that counts objects
// collected since). The chat template is rendered beforehand, outside the figures.
// Usage: node dist/bench/long-prompt-tokenize.js [--rounds N] [--baseline DIR]
import { execFileSync } from 'node:child_process';
import inspector from 'node:inspector';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMicros, median } from './support/cpu-time.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, baseline: { type: 'string' }, child: { type: 'string' } } });
const HERE = path.dirname(fileURLToPath(import.meta.url));
const PROMPTS = 500;

interface Figures {
  hitUs: number;
  missUs: number;
  hitKB: number;
  missKB: number;
}

/** bench/compare.ts's ttft prompt `i`. */
function longPrompt(i: number): string {
  const sentences: string[] = [];
  for (let s = 0; s < 77; s++) sentences.push(`Report ${i}-${s}: the quick brown fox jumps over the lazy dog.`);
  return sentences.join(' ');
}

async function measure(root: string): Promise<Figures> {
  const load = <T>(rel: string): Promise<T> => import(pathToFileURL(path.join(root, 'dist/src', rel)).href) as Promise<T>;
  const models = await load<typeof import('../src/models/index.js')>('models/index.js');
  const pre = await load<typeof import('../src/pipeline/preprocess/index.js')>('pipeline/preprocess/index.js');
  const files = await load<typeof import('../src/pipeline/preprocess/tokenizer/tokenizer-file.js')>('pipeline/preprocess/tokenizer/tokenizer-file.js');
  const card = models.loadDefaultModelCard();
  const cache = new pre.PrefixTokenCache(files.tokenizerFile(card.tokenizerJsonPath).boundaryTokens, 64 * 1024 * 1024, 1024);
  const tokenizer = new pre.HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
  const template = new pre.ChatTemplate(card);
  const rendered = (from: number): string[] =>
    Array.from({ length: PROMPTS }, (_, i) => template.render({ model: 'm', messages: [{ role: 'user', content: longPrompt(from + i) }] }));
  const tokenize = async (texts: readonly string[]): Promise<void> => {
    for (const text of texts) if (tokenizer.encodeNow(text, false) === null) await tokenizer.encode(text, false);
  };
  // Warm: the code, the encoder's piece cache and the checks that precede answering on the calling thread.
  await tokenize(rendered(1_000_000));
  await tokenize(rendered(1_000_000));

  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))));
  await post('HeapProfiler.enable');
  const cpu = async (texts: readonly string[]): Promise<number> => {
    const started = cpuMicros();
    await tokenize(texts);
    return (cpuMicros() - started) / texts.length;
  };
  // Apart from the CPU figures: sampling costs time per sample, i.e. per byte allocated.
  const kb = async (texts: readonly string[]): Promise<number> => {
    await post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await tokenize(texts);
    const { profile } = await post<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
    return bytesOf(profile.head) / texts.length / 1024;
  };
  const timed = rendered(0);
  const missUs = await cpu(timed);
  const hitUs = await cpu(timed);
  const sampled = rendered(PROMPTS);
  const missKB = await kb(sampled);
  const hitKB = await kb(sampled);
  session.disconnect();
  return { hitUs, missUs, hitKB, missKB };
}

interface HeapNode {
  selfSize: number;
  children: HeapNode[];
}

function bytesOf(node: HeapNode): number {
  return node.children.reduce((sum, child) => sum + bytesOf(child), node.selfSize);
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
    const out = execFileSync(process.execPath, ['--max-semi-space-size=32', fileURLToPath(import.meta.url), '--child', root], { encoding: 'utf8' });
    const figures = JSON.parse(out.trim().split('\n').at(-1)!) as Figures;
    results.get(name)!.push(figures);
    console.log(`round ${r + 1} ${name.padEnd(8)} ${JSON.stringify(figures, (_k, v: unknown) => (typeof v === 'number' ? Number(v.toFixed(1)) : v))}`);
  }
}
const rows: [string, keyof Figures][] = [
  ['seen prompt (prefix cache hit): CPU µs per prompt', 'hitUs'],
  ['new prompt (miss): CPU µs per prompt', 'missUs'],
  ['seen prompt: KB allocated per prompt', 'hitKB'],
  ['new prompt: KB allocated per prompt', 'missKB'],
];
console.log(`\n${rounds} rounds, medians (${PROMPTS} ~1.3k-token prompts each)\n| figure | ${checkouts.map(([n]) => n).join(' | ')} |\n|---|${checkouts.map(() => '---|').join('')}`);
for (const [label, key] of rows) console.log(`| ${label} | ${checkouts.map(([n]) => median(results.get(n)!.map((f) => f[key])).toFixed(1)).join(' | ')} |`);
