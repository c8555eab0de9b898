// A `dynamo-ts worker openai` process in front of two stand-in upstreams, over file discovery and
// the TCP request plane, with the frontend in this process: answers, an upstream's 400 and an
// upstream dying mid-stream all cross the wire as a client expects.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startFrontend, type FrontendService } from '../../src/launch/index.js';
import { bridgeTokenizer } from '../../src/launch/bridge/index.js';
import { loadDefaultModelCard } from '../../src/models/index.js';
import { createLogger } from '../../src/observability/index.js';
import { eventually } from '../support/in-process.js';
import { startStandIn, type StandIn } from '../support/openai-upstream.js';
import { startProcess, type RunningProcess } from '../support/processes.js';
import { stopAll } from './helpers.js';
import { runConfig } from '../support/run-config.js';

const MODEL = 'bridged-over-tcp';
const tokenizer = bridgeTokenizer(loadDefaultModelCard());
const TEXT = 'Streamed from an upstream, across the TCP request plane.';
let kvRoot: string;
let frontend: FrontendService;
let worker: RunningProcess;
let client: OpenAI;
let dying: StandIn;
let healthy: StandIn;
let answer: number[];

before(async () => {
  answer = await tokenizer.encode(TEXT);
  dying = await startStandIn({ kind: 'vllm', answer, dropAfter: 2 });
  healthy = await startStandIn({ kind: 'vllm', answer });
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-bridge-kv-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', ETCD_LEASE_TTL: '10' };
  const config = runConfig(['frontend', '--http-host', '127.0.0.1', '--http-port', '0'], env);
  frontend = await startFrontend(config, createLogger('silent'));
  // A 5 s health interval (and so a 5 s probe timeout): the stand-ins live in this busy test process,
  // and 3 probes timing out at 2 s under load withdrew both upstreams (the model then 404s).
  worker = startProcess(
    ['worker', 'openai', '--model-name', MODEL, '--upstream', dying.url, '--upstream', healthy.url, '--migration-limit', '2', '--upstream-health-interval', '5'],
    { DYN_LOG: 'warn', DYN_TCP_RPC_HOST: '127.0.0.1', ...env },
  );
  await eventually(
    () => worker.proc.exitCode === null && frontend.models.has(MODEL) && frontend.models.get(MODEL).router.instanceIds.length === 2,
    60_000,
    `the bridged instances:\n${worker.output()}`,
  );
  client = new OpenAI({ baseURL: `http://127.0.0.1:${frontend.port}/v1`, apiKey: 'unused', maxRetries: 0 });
});

after(async () => {
  await stopAll([worker]);
  await frontend.stop();
  await dying.close();
  await healthy.close();
  rmSync(kvRoot, { recursive: true, force: true });
});

test('streams complete across the wire, moving off the upstream that dies', async () => {
  for (let i = 0; i < 2; i++) {
    const stream = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true, max_tokens: 50 })
      .catch((err: unknown) => assert.fail(`request ${i}: ${String(err)}\nworker:\n${worker.output()}`));
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.ok(finish === 'stop' || finish === 'length', `finished (${finish})`);
    assert.ok(text.length > 0);
  }
  assert.equal(dying.requests.length, 1);
  assert.ok(healthy.requests.some((r) => (r.body.prompt as number[]).length > (dying.requests[0]!.body.prompt as number[]).length), 'the moved request continued');
});

test("an upstream's 400 reaches the client as a 400 with the engine's message", async () => {
  const refusing = await startStandIn({ kind: 'vllm', answer, refuseWith: { status: 400, message: 'best_of must be 1 for streaming' } });
  after(() => refusing.close());
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', ETCD_LEASE_TTL: '2' };
  const other = startProcess(['worker', 'openai', '--model-name', 'refusing', '--endpoint', 'dyn://dynamo.refusing.generate', '--upstream', refusing.url], { DYN_LOG: 'warn', DYN_TCP_RPC_HOST: '127.0.0.1', ...env });
  after(() => stopAll([other]));
  await eventually(() => frontend.models.has('refusing') && frontend.models.get('refusing').router.instanceIds.length === 1, 60_000, `the refusing instance:\n${other.output()}`);
  await assert.rejects(
    client.completions.create({ model: 'refusing', prompt: 'x', max_tokens: 3 }),
    (err: unknown) => err instanceof OpenAI.BadRequestError && /best_of must be 1 for streaming/.test(err.message),
  );
});

test('text-in: the reasoning and tool calls the engine parsed cross the wire to the client', async () => {
  const parsing = await startStandIn({
    kind: 'text',
    answer: [],
    finish: 'tool_calls',
    chatDeltas: [
      { delta: { reasoning_content: 'Needs the tool.' } },
      { delta: { content: 'Checking.' } },
      { delta: { tool_calls: [{ index: 0, id: 'tool-1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] } },
    ],
  });
  after(() => parsing.close());
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', ETCD_LEASE_TTL: '2' };
  const textIn = startProcess(
    ['worker', 'openai', '--model-name', 'text-in', '--endpoint', 'dyn://dynamo.textin.generate', '--upstream', parsing.url, '--upstream-input', 'text'],
    { DYN_LOG: 'warn', DYN_TCP_RPC_HOST: '127.0.0.1', ...env },
  );
  after(() => stopAll([textIn]));
  await eventually(() => frontend.models.has('text-in') && frontend.models.get('text-in').router.instanceIds.length === 1, 60_000, `the text-in instance:\n${textIn.output()}`);
  const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
  const answer = await client.chat.completions.create({ model: 'text-in', messages: [{ role: 'user', content: 'look it up' }], tools });
  const message = answer.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
  assert.equal(message.reasoning_content, 'Needs the tool.');
  assert.equal(message.content, 'Checking.');
  assert.deepEqual(message.tool_calls, [{ id: 'tool-1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }]);
  assert.equal(answer.choices[0]!.finish_reason, 'tool_calls');
  assert.equal(parsing.requests[0]!.body.stream, true, 'no max_tokens: the answer may be long, so it streams');

  // A short unary request: the worker asks for the answer whole, and it crosses the wire the same.
  const short = await client.chat.completions.create({ model: 'text-in', messages: [{ role: 'user', content: 'look it up' }], tools, max_tokens: 20 });
  assert.equal(parsing.requests[1]!.body.stream, false);
  assert.deepEqual(short.choices[0]!.message, answer.choices[0]!.message);
  assert.equal(short.choices[0]!.finish_reason, 'tool_calls');
});

test('token-in: a short unary request crosses the wire as one non-streamed upstream call, with its usage', async () => {
  const reply = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
  assert.equal(reply.choices[0]!.message.content, await tokenizer.decode(answer.slice(0, 5)));
  assert.equal(reply.choices[0]!.finish_reason, 'length');
  assert.equal(reply.usage?.completion_tokens, 5);
  const sent = healthy.requests.at(-1)!.body;
  assert.equal(sent.stream, false);
  assert.equal(sent.max_tokens, 5);
});
