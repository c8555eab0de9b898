// CPU and bytes per small unary chat request between the HTTP route and its answer: `serve`'s
// in-process mocker (sped up so it is never the limit) behind the model's router, the request's
// lifecycle, decoding and the unary fold, as the chat route runs them, 64 requests at a time, 8
// tokens each. The chat request is preprocessed once; each request gets its own copy of it. CPU is
// the best of 5 runs (process.cpuUsage); bytes are a sampling heap profile that counts collected
// objects (--heap-out FILE keeps this build's profile, for heapsum per function).
//
//   node dist/bench/unary-path.js [--baseline DIR] [--rounds 3] [--requests 20000] [--heap-out FILE]
//
// Each build runs in a process of its own, on its own dist/; with --baseline, rounds alternate
// (A B A B) and the medians are printed.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './support/cpu-time.js';

type PipelineModule = typeof import('../src/pipeline/index.js');
type ProtocolsModule = typeof import('../src/protocols/index.js');
type InProcessModule = typeof import('../test/support/in-process.js');

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '20000' },
    root: { type: 'string' },
    'heap-out': { type: 'string' },
  },
});
const REQUESTS = Number(values.requests);
const BATCH = 64;
const MODEL = 'Qwen/Qwen3-0.6B';

if (values.root) await measure(values.root);
else compare();

/** Runs the rounds, one process per build and round, and prints the medians. */
function compare(): void {
  const self = fileURLToPath(import.meta.url);
  const here = path.resolve(path.dirname(self), '../..');
  const builds = [{ name: 'this build', root: here }, ...(values.baseline ? [{ name: 'baseline', root: path.resolve(values.baseline) }] : [])];
  const figures = new Map<string, { cpu: number[]; bytes: number[] }>(builds.map((b) => [b.name, { cpu: [], bytes: [] }]));
  for (let round = 1; round <= Number(values.rounds); round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) {
      const heapOut = build.root === here && values['heap-out'] ? ['--heap-out', values['heap-out']] : [];
      const out = execFileSync(process.execPath, [self, '--root', build.root, '--requests', String(REQUESTS), ...heapOut], {
        encoding: 'utf8',
        env: { ...process.env, DYN_LOG: 'error' },
      });
      const { cpu, bytes } = JSON.parse(out.trim().split('\n').at(-1)!) as { cpu: number; bytes: number };
      figures.get(build.name)!.cpu.push(cpu);
      figures.get(build.name)!.bytes.push(bytes);
      console.log(`round ${round} ${build.name.padEnd(10)} cpu_us_per_req=${cpu.toFixed(2)} bytes_per_req=${Math.round(bytes)}`);
    }
  }
  for (const [name, f] of figures) console.log(`median ${name.padEnd(10)} cpu_us_per_req=${median(f.cpu).toFixed(2)} bytes_per_req=${Math.round(median(f.bytes))}`);
}

/** One build's figures, as JSON on stdout. */
async function measure(root: string): Promise<void> {
  const { serveInProcess } = (await import(path.join(root, 'dist/test/support/in-process.js'))) as InProcessModule;
  const pl = (await import(path.join(root, 'dist/src/pipeline/index.js'))) as PipelineModule;
  const pr = (await import(path.join(root, 'dist/src/protocols/index.js'))) as ProtocolsModule;
  const { service } = await serveInProcess(['--speedup-ratio', '1000000000']);
  const served = service.models.get(MODEL)!;
  const chat = served.preprocessor.validateChat({ model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8, ignore_eos: true });
  const run = await served.preprocessor.preprocessChat(chat, {});
  const target = { engine: served.router, tokenTable: served.tokenTable };
  // The frontend's own scope, so its metrics count these requests as they count the route's.
  const scope = (service.http as unknown as { opts: { requestScope: { name: string } } }).opts.requestScope;

  /** One request as the chat route answers it unary: lifecycle, engine fan-out, fold. */
  const one = (i: number): Promise<void> => {
    const requestId = `r${i}`;
    const request = pl.RequestLifecycle.start({ scope, id: requestId, model: MODEL, endpoint: 'chat_completions', requestType: 'unary' });
    const prompt = { ...run, request: { ...run.request, unary: true } };
    request.tokenized([prompt]);
    // The client's call signal, as the model route makes it and hands it on once the call ended.
    const call = pr.callController();
    const signal = call.signal;
    const steps = pl.generateChoices({ target, prompts: [prompt], n: 1, requestId, signal, hooks: request.contextHooks() });
    // The output parsers the chat route gives a choice of this model (its reasoning parser, say).
    const reasoning = pl.reasoningFor(served.parsers.reasoning, chat, run.formattedPrompt);
    const toolCalls = pl.toolCallsFor(served.parsers.toolCall, chat, run.toolCallsNative === true);
    const fold = new pl.ResponseFold({ promptTokens: prompt.promptTokens, collectText: true, request, reasoning, toolCalls });
    return pr.drainStream(steps, (step) => fold.absorb(step), true).then(() => {
      request.succeed();
      pr.callEnded(call);
      if (fold.choices()[0]?.outputTokens !== 8) throw new Error('expected 8 tokens');
    });
  };
  const runAll = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i += BATCH) {
      const batch: Promise<void>[] = [];
      for (let j = 0; j < BATCH; j++) batch.push(one(i + j));
      await Promise.all(batch);
    }
  };
  await runAll(REQUESTS / 2);
  let cpu = Infinity;
  for (let k = 0; k < 5; k++) {
    const before = process.cpuUsage();
    await runAll(REQUESTS);
    const used = process.cpuUsage(before);
    cpu = Math.min(cpu, (used.user + used.system) / REQUESTS);
  }
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await runAll(REQUESTS);
  const { profile } = await post<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
  if (values['heap-out']) fs.writeFileSync(values['heap-out'], JSON.stringify(profile));
  await service.stop();
  process.stdout.write(JSON.stringify({ cpu, bytes: sampledBytes(profile.head) / REQUESTS }) + '\n');
  process.exit(0);
}

interface HeapNode {
  selfSize: number;
  children: HeapNode[];
}

function sampledBytes(node: HeapNode): number {
  let total = node.selfSize;
  for (const child of node.children) total += sampledBytes(child);
  return total;
}
