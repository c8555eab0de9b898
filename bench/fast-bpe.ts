// The fast BPE encoder vs the native `tokenizers` core on the bundled Qwen3 tokenizer.json, side by
// side in one run (rounds interleaved A B A B), CPU µs per encode from process.cpuUsage() (which
// counts the libuv thread the native call runs on) and wall µs per awaited encode, three ways:
//   native: HfTokenizer with the fast encoder off (the native call on the libuv pool)
//   fast: the fast encoder alone, no bounds
//   wired: HfTokenizer as served (fast within its bounds, else native)
// on:
//   short: a rendered chat prompt with one short user message (~15 tokens)
//   1k: ~5.7k characters of English (~1.3k tokens), each prompt different
//   warm: pieces the encoder has seen (its cache answers); cold: random words never seen before
//   load: reading tokenizer.json and building the encoder, vs the native Tokenizer.fromFile
//   cold by length: where a synchronous cold encode crosses ~1 ms and ~2 ms (the sync bound)
// Usage: node dist/bench/fast-bpe.js [--rounds N]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Tokenizer } from 'tokenizers';
import { loadDefaultModelCard } from '../src/models/index.js';
import { ChatTemplate, HfTokenizer, loadFastBpe, type FastBpeEncoder } from '../src/pipeline/preprocess/index.js';
import { cpuMicros, median } from './support/cpu-time.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const card = loadDefaultModelCard();

let seed = 7;
function random(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
}

/** Random lowercase words of 2–10 letters: pieces no cache has seen. */
function coldText(chars: number): string {
  let s = '';
  while (s.length < chars) {
    const n = 2 + Math.floor(random() * 9);
    for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(random() * 26));
    s += random() < 0.1 ? '. ' : ' ';
  }
  return s;
}

let serial = 0;
/** ~5.7k characters of English with numbers that change per prompt. */
function warmLong(): string {
  const i = serial++;
  const s: string[] = [];
  for (let k = 0; k < 77; k++) s.push(`Report ${i}-${k}: the quick brown fox jumps over the lazy dog.`);
  return s.join(' ');
}

interface Cost {
  cpu: number;
  wall: number;
}

async function perEncode(tokenizer: HfTokenizer, texts: string[]): Promise<Cost> {
  const start = cpuMicros();
  const started = performance.now();
  for (const t of texts) await tokenizer.encode(t, false);
  return { cpu: (cpuMicros() - start) / texts.length, wall: ((performance.now() - started) * 1000) / texts.length };
}

function perFast(fast: FastBpeEncoder, texts: string[]): Cost {
  const start = cpuMicros();
  const started = performance.now();
  for (const t of texts) fast.encode(t, false);
  return { cpu: (cpuMicros() - start) / texts.length, wall: ((performance.now() - started) * 1000) / texts.length };
}

function loadBench(): { fast: FastBpeEncoder; native: Tokenizer } {
  const loads: number[] = [];
  const natives: number[] = [];
  let fast: FastBpeEncoder | null = null;
  let native: Tokenizer | null = null;
  for (let r = 0; r < 3; r++) {
    let start = cpuMicros();
    const load = loadFastBpe(JSON.parse(readFileSync(card.tokenizerJsonPath, 'utf8')) as Record<string, unknown>);
    loads.push(cpuMicros() - start);
    if (!load.ok) throw new Error(load.reason);
    fast = load.encoder;
    start = cpuMicros();
    native = Tokenizer.fromFile(card.tokenizerJsonPath);
    natives.push(cpuMicros() - start);
  }
  console.log(`load (CPU ms, median of 3): fast encoder (read + JSON.parse + build) ${(median(loads) / 1000).toFixed(0)}, native Tokenizer.fromFile ${(median(natives) / 1000).toFixed(0)}`);
  return { fast: fast!, native: native! };
}

async function main(): Promise<void> {
  const { fast, native } = loadBench();
  const nativeOnly = new HfTokenizer(card.tokenizerJsonPath, { fastBpeMaxChars: 0 });
  const wired = new HfTokenizer(card.tokenizerJsonPath);
  const template = new ChatTemplate(card);
  const short = template.render({ model: 'm', messages: [{ role: 'user', content: 'Hello, how are you?' }] });
  const longTokens = (await native.encode(warmLong(), null, { addSpecialTokens: false })).getIds().length;
  for (let i = 0; i < 200; i++) {
    const text = warmLong();
    fast.encode(text, false);
    await wired.encode(text, false);
  }
  fast.encode(short, false);
  const rows: Record<string, Cost[]> = {};
  const add = (name: string, v: Cost): void => void (rows[name] ??= []).push(v);
  const workloads: [string, () => string[]][] = [
    ['short chat prompt, warm', () => Array(2000).fill(short) as string[]],
    ['short chat prompt, cold (19 chars of unseen words)', () => Array.from({ length: 2000 }, () => short.replace('Hello, how are you?', coldText(19)))],
    [`1k (${longTokens} tokens, ${warmLong().length} chars), warm`, () => Array.from({ length: 100 }, warmLong)],
    [`1k cold (${warmLong().length} chars of unseen words)`, () => Array.from({ length: 50 }, () => coldText(4609))],
  ];
  for (let r = 0; r < rounds; r++) {
    for (const [name, texts] of workloads) {
      // Each path gets texts of its own, so none finds the pieces another one just cached.
      add(`${name}: native`, await perEncode(nativeOnly, texts()));
      add(`${name}: fast`, perFast(fast, texts()));
      add(`${name}: wired`, await perEncode(wired, texts()));
    }
  }
  console.log(`µs per encode, CPU / wall (median of ${rounds} interleaved rounds):`);
  for (const [name, xs] of Object.entries(rows)) {
    console.log(`  ${name}: ${median(xs.map((x) => x.cpu)).toFixed(1)} / ${median(xs.map((x) => x.wall)).toFixed(1)}   [cpu ${xs.map((x) => x.cpu.toFixed(0)).join(' ')}]`);
  }
  console.log('fast, cold, by length (CPU µs per encode, median of 5 rounds of 20 texts):');
  for (const chars of [1024, 2048, 4096, 8192, 16384]) {
    const xs: number[] = [];
    for (let r = 0; r < 5; r++) xs.push(perFast(fast, Array.from({ length: 20 }, () => coldText(chars))).cpu);
    console.log(`  ${chars} chars: ${median(xs).toFixed(0)}`);
  }
  console.log(`pieces cached: ${fast.cachedPieces}`);
}

void main();
