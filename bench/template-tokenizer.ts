// Chat template and tokenizer costs, each pair measured side by side in one run (A B A B):
//   template: @huggingface/jinja's Template vs the compiled TemplateProgram, Qwen3, CPU µs/render
//   tokenizer: native `tokenizers` one by one, native batched, @lenml/tokenizers (JS), HfTokenizer
//              with its fast BPE encoder (as served), and each with the prompt prefix cache on a
//              repeated system prompt and on prompts that are all new, CPU µs/prompt (bench/fast-bpe.ts
//              has the encoder alone)
//   serve: small non-streaming chat requests through `dynamo-ts serve` (this build, and with
//          --baseline DIR another build; with --fastokens also this build with --tokenizer
//          fastokens), req/s and the server's CPU µs per request, rounds interleaved
// Usage: node dist/bench/template-tokenizer.js [--rounds N] [--seconds S] [--concurrency C] [--baseline DIR] [--fastokens] [--system-tokens N]

import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Template } from '@huggingface/jinja';
import { TokenizerLoader } from '@lenml/tokenizers';
import { Tokenizer } from 'tokenizers';
import { loadDefaultModelCard } from '../src/models/index.js';
import { boundaryTokensOf, ChatTemplate, HfTokenizer, PrefixTokenCache } from '../src/pipeline/preprocess/index.js';
import { TemplateProgram } from '../src/pipeline/preprocess/jinja/index.js';
import { freePort, startProcess, waitForModel, type RunningProcess } from '../test/support/processes.js';
import { cpuMicros, median } from './support/cpu-time.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    baseline: { type: 'string' },
    fastokens: { type: 'boolean', default: false },
    'system-tokens': { type: 'string', default: '1500' },
  },
});
const rounds = Number(values.rounds);
const MODEL = 'Qwen/Qwen3-0.6B';
const card = loadDefaultModelCard();

/** CPU µs per call of `fn`, over `n` calls. */
function perCall(fn: () => unknown, n: number): number {
  const start = cpuMicros();
  for (let i = 0; i < n; i++) fn();
  return (cpuMicros() - start) / n;
}

async function perCallAsync(fn: () => Promise<unknown>, n: number): Promise<number> {
  const start = cpuMicros();
  for (let i = 0; i < n; i++) await fn();
  return (cpuMicros() - start) / n;
}

function templateBench(): void {
  const source = card.chatTemplates.default!;
  const reference = new Template(source);
  const compiled = new TemplateProgram(source);
  const context = (): Record<string, unknown> => ({
    messages: [{ role: 'user', content: 'Hello, how are you?' }],
    tools: null,
    tool_choice: null,
    add_generation_prompt: true,
    bos_token: '',
    eos_token: card.eosToken ?? '',
    unk_token: '',
  });
  if (reference.render(context()) !== compiled.render(context())) throw new Error('renders differ');
  perCall(() => reference.render(context()), 5000);
  perCall(() => compiled.render(context()), 50000);
  const ref: number[] = [];
  const fast: number[] = [];
  for (let r = 0; r < rounds; r++) {
    ref.push(perCall(() => reference.render(context()), 10000));
    fast.push(perCall(() => compiled.render(context()), 100000));
  }
  console.log(`template (Qwen3, one short message): @huggingface/jinja ${median(ref).toFixed(1)} µs, compiled ${median(fast).toFixed(2)} µs, ratio ${(median(ref) / median(fast)).toFixed(1)}x`);
  console.log(`  per round ref: ${ref.map((x) => x.toFixed(1)).join(' ')}; compiled: ${fast.map((x) => x.toFixed(2)).join(' ')}`);
}

async function tokenizerBench(): Promise<void> {
  const dir = path.dirname(card.tokenizerJsonPath);
  const native = Tokenizer.fromFile(card.tokenizerJsonPath);
  const json = JSON.parse(readFileSync(card.tokenizerJsonPath, 'utf8')) as Parameters<typeof boundaryTokensOf>[0];
  const js = TokenizerLoader.fromPreTrained({ tokenizerJSON: json as never, tokenizerConfig: JSON.parse(readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')) as never });
  const template = new ChatTemplate(card);
  const system = 'You are a helpful assistant for a travel company. Answer politely and concisely. '.repeat(Math.ceil(Number(values['system-tokens']) / 16));
  let turn = 0;
  const prompt = (): string => template.render({ model: 'm', messages: [{ role: 'system', content: system }, { role: 'user', content: `Question number ${turn++}?` }] });
  const short = template.render({ model: 'm', messages: [{ role: 'user', content: 'Hello, how are you?' }] });
  let fresh = 0;
  const distinctShort = (): string => template.render({ model: 'm', messages: [{ role: 'user', content: `Hello number ${fresh++}, how are you?` }] });
  const distinctLong = (): string =>
    template.render({ model: 'm', messages: [{ role: 'system', content: `Session ${fresh++}. ${system}` }, { role: 'user', content: 'A question?' }] });
  const plain = new HfTokenizer(card.tokenizerJsonPath, { fastBpeMaxChars: 0 });
  const cached = new HfTokenizer(card.tokenizerJsonPath, { fastBpeMaxChars: 0, prefixCache: new PrefixTokenCache(boundaryTokensOf(json), 50 * 1024 * 1024) });
  const fast = new HfTokenizer(card.tokenizerJsonPath);
  const fastCached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: new PrefixTokenCache(boundaryTokensOf(json), 50 * 1024 * 1024) });
  const tokens = (await plain.encode(prompt(), false)).length;
  const rows: Record<string, number[]> = {};
  const add = (name: string, v: number): void => void (rows[name] ??= []).push(v);
  for (let r = 0; r < rounds; r++) {
    add('short: native, one encode at a time', await perCallAsync(async () => (await native.encode(short, null, { addSpecialTokens: false })).getIds(), 2000));
    add('short: native, 64 per batch', (await perCallAsync(async () => (await native.encodeBatch(Array(64).fill(short), { addSpecialTokens: false })).map((e) => e.getIds()), 40)) / 64);
    add('short: @lenml/tokenizers (JS)', perCall(() => js.encode(short, { add_special_tokens: false }), 2000));
    add('short: HfTokenizer with the fast BPE encoder', await perCallAsync(() => fast.encode(short, false), 2000));
    add(`system prompt (${tokens} tokens): native`, await perCallAsync(() => plain.encode(prompt(), false), 100));
    add(`system prompt (${tokens} tokens): @lenml/tokenizers (JS)`, perCall(() => js.encode(prompt(), { add_special_tokens: false }), 50));
    add(`system prompt (${tokens} tokens): native + prefix cache`, await perCallAsync(() => cached.encode(prompt(), false), 100));
    add(`system prompt (${tokens} tokens): fast BPE encoder`, await perCallAsync(() => fast.encode(prompt(), false), 100));
    add(`system prompt (${tokens} tokens): fast BPE encoder + prefix cache`, await perCallAsync(() => fastCached.encode(prompt(), false), 100));
    // What the cache costs where it never hits: every prompt new from its first token.
    add('short, each one new: fast BPE encoder', await perCallAsync(() => fast.encode(distinctShort(), false), 2000));
    add('short, each one new: fast BPE encoder + prefix cache', await perCallAsync(() => fastCached.encode(distinctShort(), false), 2000));
    add(`system prompt (${tokens} tokens), each one new: fast BPE encoder`, await perCallAsync(() => fast.encode(distinctLong(), false), 100));
    add(`system prompt (${tokens} tokens), each one new: fast BPE encoder + prefix cache`, await perCallAsync(() => fastCached.encode(distinctLong(), false), 100));
  }
  console.log('tokenizer, CPU µs per prompt (median of rounds):');
  for (const [name, xs] of Object.entries(rows)) console.log(`  ${name}: ${median(xs).toFixed(1)}`);
  console.log(`  prefix cache hits ${cached.cache?.hits ?? 0}, misses ${cached.cache?.misses ?? 0}; fast encoder ${fast.fastEncoderStatus}`);
}

interface Server {
  name: string;
  port: number;
  proc: RunningProcess;
}

async function startServer(name: string, extra: string[], bin?: string): Promise<Server> {
  const port = await freePort();
  const proc = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000000000', ...extra], {}, bin);
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, proc, 60_000);
  return { name, port, proc };
}

/** The child's CPU time (user + system) in µs, from /proc. */
function childCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function post(port: number, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Requests for `seconds` at `concurrency`: req/s and the server's CPU µs per request. */
async function load(server: Server, body: () => string, seconds: number, concurrency: number): Promise<{ rps: number; cpuPerRequest: number }> {
  const pid = server.proc.proc.pid!;
  const cpu0 = childCpuMicros(pid);
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await post(server.port, body());
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return { rps: done / elapsed, cpuPerRequest: (childCpuMicros(pid) - cpu0) / done };
}

async function serveBench(): Promise<void> {
  const servers = [await startServer('this build', [])];
  if (values.baseline) servers.push(await startServer('baseline', [], path.resolve(values.baseline, 'bin/dynamo-ts.js')));
  if (values.fastokens) servers.push(await startServer('this build, --tokenizer fastokens', ['--tokenizer', 'fastokens']));
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const small = (): string => JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hello, how are you?' }], max_tokens: 1 });
  const system = 'You are a helpful assistant for a travel company. Answer politely and concisely. '.repeat(Math.ceil(Number(values['system-tokens']) / 16));
  let n = 0;
  const withSystem = (): string =>
    JSON.stringify({ model: MODEL, messages: [{ role: 'system', content: system }, { role: 'user', content: `Question ${n++}?` }], max_tokens: 1 });
  const workloads = { 'small chat': small, 'shared system prompt': withSystem };
  for (const [workload, body] of Object.entries(workloads)) {
    const results = new Map<string, { rps: number[]; cpu: number[] }>();
    for (const s of servers) await load(s, body, 1, concurrency);
    for (let r = 0; r < rounds; r++) {
      for (const s of servers) {
        const m = await load(s, body, seconds, concurrency);
        const entry = results.get(s.name) ?? { rps: [], cpu: [] };
        entry.rps.push(m.rps);
        entry.cpu.push(m.cpuPerRequest);
        results.set(s.name, entry);
      }
    }
    console.log(`serve, ${workload}, non-streaming, max_tokens 1, concurrency ${concurrency} (median of ${rounds} interleaved rounds of ${seconds} s):`);
    const first = results.get(servers[0]!.name)!;
    for (const [name, m] of results) {
      console.log(
        `  ${name}: ${median(m.rps).toFixed(0)} req/s, server CPU ${median(m.cpu).toFixed(0)} µs/request; vs this build: req/s ${(median(m.rps) / median(first.rps)).toFixed(2)}, CPU ${(median(m.cpu) / median(first.cpu)).toFixed(2)}`,
      );
    }
  }
  for (const s of servers) await s.proc.stop();
}

async function main(): Promise<void> {
  templateBench();
  await tokenizerBench();
  await serveBench();
  agent.destroy();
}

void main();
