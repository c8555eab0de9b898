// CPU and bytes per small unary chat request between the HTTP route and its answer: `serve`'s
// in-process mocker (sped up so it is never the limit) behind the model's router, the request's
// lifecycle, decoding and the unary fold, as the chat route runs them, 64 requests at a time, 8
// tokens each. The chat request is preprocessed once; each request gets its own copy of it. CPU is
// the best of 5 runs (process.cpuUsage), GC the pauses over those runs (objects that outlive their
// request make young GCs long); bytes are a sampling heap profile that counts collected objects
// (--heap-out FILE keeps this build's profile, for heapsum per function).
//
//   node dist/bench/unary-path.js [--baseline DIR] [--rounds 3] [--requests 20000] [--heap-out FILE]
//
// Each build runs in a process of its own, on its own dist/; with --baseline, rounds alternate
// (A B A B) and the medians are printed.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchOptions, compareWithBaseline, inBatches, measureRequests } from './support/request-figures.js';

type PipelineModule = typeof import('../src/pipeline/index.js');
type ProtocolsModule = typeof import('../src/protocols/index.js');
type InProcessModule = typeof import('../test/support/in-process.js');

const { values } = parseArgs({ options: { ...benchOptions(20000), 'heap-out': { type: 'string' } } });
const REQUESTS = Number(values.requests);
const BATCH = 64;
const MODEL = 'Qwen/Qwen3-0.6B';

const heapOut = values['heap-out'];
if (values.root) await measure(values.root);
else {
  compareWithBaseline(import.meta.url, values.baseline, Number(values.rounds), (build, self) => [
    '--root',
    build.root,
    '--requests',
    String(REQUESTS),
    ...(self && heapOut ? ['--heap-out', heapOut] : []),
  ]);
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
  const runAll = (count: number): Promise<void> => inBatches(one, count, BATCH);
  const { figures, profile } = await measureRequests(runAll, REQUESTS);
  if (heapOut) fs.writeFileSync(heapOut, JSON.stringify(profile));
  await service.stop();
  process.stdout.write(JSON.stringify(figures) + '\n');
  process.exit(0);
}
