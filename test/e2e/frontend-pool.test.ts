// `dynamo-ts serve --http-workers 2`: two frontend processes share the HTTP and gRPC ports. Both
// answer (told apart by the pid of their request log lines), both route on the same KV events,
// /metrics counts the requests of both, a killed process is replaced, SIGTERM leaves no process;
// both start with the malloc settings.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { MALLOC_TUNING } from '../../src/launch/malloc-tuning.js';
import { makeClient, textInput, texts, unary } from '../frontends/grpc/harness.js';
import { freshConnectionFetch } from '../support/fresh-connection-fetch.js';
import { freePort, startProcess, type RunningProcess } from '../support/processes.js';
import { jsonLogLines, type LogLine } from '../support/json-log.js';
import { families, scrape } from '../support/prometheus-text.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const READY_MS = 180_000;

let serve: RunningProcess;
let baseUrl: string;
let grpcPort: number;
/** Every frontend process pid seen, replacements included. */
const pids = new Set<number>();
let httpRequests = 0;
let grpcCalls = 0;

const logLines = (): LogLine[] => jsonLogLines(serve);

async function untilLog(what: string, find: (l: LogLine) => boolean): Promise<LogLine> {
  const deadline = Date.now() + READY_MS;
  for (;;) {
    const line = logLines().find(find);
    if (line) return line;
    assert.ok(serve.proc.exitCode === null, `serve exited:\n${serve.output()}`);
    assert.ok(Date.now() < deadline, `no ${what} in the log:\n${serve.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pid of the process that served request `id` (its debug "request finished" line). */
async function servedBy(id: string): Promise<number> {
  return (await untilLog(`request ${id}`, (l) => l.msg === 'request finished' && l.request_id === id)).pid;
}

/** A new connection per request, so the pool's round robin spreads them over its processes. */
const openai = new OpenAI({ baseURL: 'http://placeholder/v1', apiKey: 'unused', maxRetries: 0, fetch: freshConnectionFetch });
let nextId = 0;

function client(): { api: OpenAI; id: string } {
  const id = `pool-${nextId++}`;
  httpRequests++;
  return { api: openai.withOptions({ baseURL: `${baseUrl}/v1`, defaultHeaders: { 'x-request-id': id } }), id };
}

before(async () => {
  const port = await freePort();
  grpcPort = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  serve = startProcess(
    ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--grpc-port', String(grpcPort), '--http-workers', '2', '--num-workers', '3', '--router-mode', 'kv', '--speedup-ratio', '100'],
    { DYN_LOGGING_JSONL: 'true', DYN_LOG: 'info,http=debug' },
  );
  const ready = await untilLog('serve listening', (l) => l.msg === 'dynamo-ts serve listening');
  assert.equal(ready.processes, 2);
  for (const pid of ready.pids as number[]) pids.add(pid);
});

after(async () => {
  await serve?.stop(30_000);
});

test('chat and completions are answered by both processes', async () => {
  const seen = { chat: new Set<number>(), completions: new Set<number>() };
  for (let i = 0; i < 20 && seen.chat.size < 2; i++) {
    const chat = client();
    const res = await chat.api.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], max_tokens: 3 });
    assert.equal(res.choices[0]!.message.role, 'assistant');
    assert.equal(res.usage!.completion_tokens, 3);
    seen.chat.add(await servedBy(chat.id));
  }
  for (let i = 0; i < 20 && seen.completions.size < 2; i++) {
    const cmpl = client();
    const text = await cmpl.api.completions.create({ model: MODEL, prompt: 'hello', max_tokens: 3 });
    assert.equal(text.usage!.completion_tokens, 3);
    seen.completions.add(await servedBy(cmpl.id));
  }
  assert.deepEqual([...seen.chat].sort(), [...pids].sort());
  assert.deepEqual([...seen.completions].sort(), [...pids].sort());
});

test('the pool processes start with the malloc settings that hand huge requests\' memory back', () => {
  for (const pid of pids) {
    const env = new Map(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    for (const [name, value] of Object.entries(MALLOC_TUNING)) assert.equal(env.get(name), value, `${name} of process ${pid}`);
  }
});

test('both processes route on the same KV events: a repeated prompt finds its prefix from either', async () => {
  const prompt = Array.from({ length: 300 }, (_, i) => `kv${i}`).join(' ');
  const first = client();
  const warm = await first.api.completions.create({ model: MODEL, prompt, max_tokens: 1 });
  assert.equal(warm.usage!.prompt_tokens_details?.cached_tokens ?? 0, 0);
  const warmedBy = await servedBy(first.id);
  // Repeats until one lands on the other process: each must find the prefix on the worker that has it.
  let repeats = 0;
  for (let crossed = false; !crossed; ) {
    assert.ok(repeats < 20, 'no repeat reached the other process');
    const again = client();
    const res = await again.api.completions.create({ model: MODEL, prompt, max_tokens: 1 });
    repeats++;
    assert.ok((res.usage!.prompt_tokens_details?.cached_tokens ?? 0) > 0, 'the repeat went to the worker holding the prefix');
    crossed = (await servedBy(again.id)) !== warmedBy;
  }
  // Each process's router predicted the overlap itself (the pooled histogram adds both): with no
  // KV events, the other process would have predicted none and merely been lucky.
  const all = families(await scrape(baseUrl));
  const blockSize = all.get('dynamo_frontend_model_kv_cache_block_size')!.samples[0]!.value;
  const overlap = all.get('dynamo_component_router_overlap_blocks')!.samples.find((s) => s.name.endsWith('_sum'))!.value;
  assert.equal(overlap, repeats * Math.floor(warm.usage!.prompt_tokens / blockSize));
});

test('gRPC ModelInfer answers on the shared port', async () => {
  for (let i = 0; i < 4; i++) {
    const grpcClient = makeClient(grpcPort);
    try {
      const res = await unary<{ outputs: { name: string; contents: { bytes_contents: Buffer[] } }[] }>(grpcClient, 'ModelInfer', {
        model_name: MODEL,
        inputs: [textInput('hello')],
      });
      grpcCalls++;
      assert.ok(texts(res.outputs.find((o) => o.name === 'text_output')!)[0]!.length > 0);
    } finally {
      grpcClient.close();
    }
  }
});

test('/metrics counts the requests of every process', async () => {
  const all = families(await scrape(baseUrl));
  const served = all
    .get('dynamo_frontend_requests_total')!
    .samples.filter((s) => s.labels.status === 'success')
    .reduce((n, s) => n + s.value, 0);
  assert.equal(served, httpRequests + grpcCalls, 'pooled requests_total: every request, whichever process served it');
  assert.equal(all.get('dynamo_frontend_model_instances')!.samples[0]!.value, 3, 'the shared view of the workers counts once');
});

test('a killed process is replaced; meanwhile and after, the other one serves HTTP and gRPC', async () => {
  for (const slot of [0, 1]) {
    const current = logLines().filter((l) => l.msg === 'dynamo-ts frontend listening' && l.frontend_process === slot).at(-1)!.pid;
    const replacedBefore = logLines().filter((l) => l.msg === 'frontend process replaced and listening').length;
    process.kill(current, 'SIGKILL');
    await untilLog(`exit of process ${slot}`, (l) => l.msg === 'frontend process exited: starting another' && l.processPid === current);
    // Whichever process answers now is not the killed one: every call must succeed.
    const { api } = client();
    const res = await api.completions.create({ model: MODEL, prompt: 'still here', max_tokens: 2 });
    assert.equal(res.usage!.completion_tokens, 2);
    const grpcClient = makeClient(grpcPort);
    try {
      await unary(grpcClient, 'ModelInfer', { model_name: MODEL, inputs: [textInput('still here')] });
    } finally {
      grpcClient.close();
    }
    const deadline = Date.now() + READY_MS;
    while (logLines().filter((l) => l.msg === 'frontend process replaced and listening').length === replacedBefore) {
      assert.ok(Date.now() < deadline, `process ${slot} was not replaced:\n${serve.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const replacement = logLines().filter((l) => l.msg === 'frontend process replaced and listening').at(-1)!;
    assert.equal(replacement.slot, slot);
    pids.add(replacement.processPid as number);
  }
});

test('SIGTERM drains every process and leaves none behind', async () => {
  assert.equal(await serve.stop(30_000), 0, serve.output());
  for (const pid of pids) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `frontend process ${pid} still running`);
});
