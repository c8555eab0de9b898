// A long chat prompt through the tokenizer as the preprocessor calls it (encodeNow, else encode),
// with the default prefix cache, this checkout beside another (--baseline), each round in a fresh
// child process per checkout (A B, B A, ...):
//   hit:  prompts seen before (bench/compare.ts's ttft job sends the same prompts every round);
//   miss: prompts never seen (each different from its first word on);
// CPU µs per prompt, and bytes allocated per prompt (a sampling heap profile that counts objects
// collected since). The chat template is rendered beforehand, outside the figures.
// Usage: node dist/bench/long-prompt-tokenize.js [--rounds N] [--baseline DIR]
import inspector from 'node:inspector';
import { parseArgs } from 'node:util';
import { compareCheckouts, longPrompt, printMedians, servedTokenizer } from './support/checkouts.js';
import { cpuMicros } from './support/cpu-time.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, baseline: { type: 'string' }, child: { type: 'string' } } });
const PROMPTS = 500;

interface Figures {
  hitUs: number;
  missUs: number;
  hitKB: number;
  missKB: number;
}

async function measure(root: string): Promise<Figures> {
  const { tokenizer, template } = await servedTokenizer(root);
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

const results = await compareCheckouts(import.meta.url, values, ['--max-semi-space-size=32'], measure);
printMedians<Figures>(
  `${values.rounds} rounds, medians (${PROMPTS} ~1.3k-token prompts each)`,
  [
    ['seen prompt (prefix cache hit): CPU µs per prompt', 'hitUs'],
    ['new prompt (miss): CPU µs per prompt', 'missUs'],
    ['seen prompt: KB allocated per prompt', 'hitKB'],
    ['new prompt: KB allocated per prompt', 'missKB'],
  ],
  results,
);
