// A long chat prompt through the tokenizer as the preprocessor calls it (encodeNow, else encode),
// with the default prefix cache, this checkout beside another (--baseline), both builds' tokenizers
// in this one process, measured in slices that alternate (A B, B A, ...): on a shared host both run
// in the same stretches of time on the same CPU (a fresh process per build and round swung ±15%
// while other work ran).
//   miss: prompts never seen (each different from its first word on);
//   hit:  the same prompts again (bench/compare.ts's ttft job sends the same prompts every round);
// CPU µs per prompt (median of the slices), and bytes allocated per prompt (a sampling heap profile
// that counts objects collected since, over one pass per build apart from the CPU slices: sampling
// costs time per byte). The chat template is rendered beforehand, outside the figures.
// Usage: node dist/bench/long-prompt-tokenize.js [--slices N] [--baseline DIR]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { longPrompt, servedTokenizer } from './support/checkouts.js';
import { cpuMicros, median } from './support/cpu-time.js';
import { sampledAllocation } from './support/request-figures.js';

const { values } = parseArgs({ options: { slices: { type: 'string', default: '30' }, baseline: { type: 'string' } } });
/** Prompts per slice and build. */
const SLICE = 100;
/** Prompts of each build's heap pass. */
const SAMPLED = 500;

interface Build {
  name: string;
  render: (from: number, count: number) => string[];
  tokenize: (texts: readonly string[]) => Promise<void>;
  missUs: number[];
  hitUs: number[];
}

async function load(name: string, root: string): Promise<Build> {
  const { tokenizer, template } = await servedTokenizer(root);
  return {
    name,
    render: (from, count) => Array.from({ length: count }, (_, i) => template.render({ model: 'm', messages: [{ role: 'user', content: longPrompt(from + i) }] })),
    tokenize: async (texts) => {
      for (const text of texts) if (tokenizer.encodeNow(text, false) === null) await tokenizer.encode(text, false);
    },
    missUs: [],
    hitUs: [],
  };
}

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const builds = [await load('this', here)];
if (values.baseline) builds.push(await load('baseline', path.resolve(values.baseline)));

/** CPU µs per prompt of tokenizing `texts`. */
async function cpu(build: Build, texts: readonly string[]): Promise<number> {
  const started = cpuMicros();
  await build.tokenize(texts);
  return (cpuMicros() - started) / texts.length;
}

// Warm: the code, the encoder's piece cache and the checks that precede answering on the calling thread.
for (const build of builds) for (let i = 0; i < 2; i++) await build.tokenize(build.render(1_000_000, 500));

const slices = Number(values.slices);
for (let s = 0; s < slices; s++) {
  for (let k = 0; k < builds.length; k++) {
    const build = builds[(s + k) % builds.length]!;
    const texts = build.render(s * SLICE, SLICE);
    build.missUs.push(await cpu(build, texts));
    build.hitUs.push(await cpu(build, texts));
  }
}

/** KB allocated per prompt of tokenizing `texts`. */
async function kb(build: Build, texts: readonly string[]): Promise<number> {
  return (await sampledAllocation(() => build.tokenize(texts))).bytes / texts.length / 1024;
}

const heap = new Map<string, { missKB: number; hitKB: number }>();
for (const build of builds) {
  const texts = build.render(10_000_000, SAMPLED);
  const missKB = await kb(build, texts);
  heap.set(build.name, { missKB, hitKB: await kb(build, texts) });
}

const names = builds.map((b) => b.name);
const row = (label: string, of: (b: Build) => string): string => `| ${label} | ${builds.map(of).join(' | ')} |`;
console.log(`\n${slices} slices of ${SLICE} ~1.3k-token prompts per build, alternating in one process; CPU medians of the slices`);
console.log(`| figure | ${names.join(' | ')} |\n|---|${names.map(() => '---|').join('')}`);
console.log(row('new prompt (miss): CPU µs per prompt', (b) => median(b.missUs).toFixed(1)));
console.log(row('seen prompt (prefix cache hit): CPU µs per prompt', (b) => median(b.hitUs).toFixed(1)));
console.log(row(`new prompt: KB allocated per prompt (${SAMPLED} sampled)`, (b) => heap.get(b.name)!.missKB.toFixed(1)));
console.log(row('seen prompt: KB allocated per prompt', (b) => heap.get(b.name)!.hitKB.toFixed(1)));
