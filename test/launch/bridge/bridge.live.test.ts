// `worker openai` bridges in front of stand-in OpenAI-compatible servers, with the frontend in the
// same process: the official clients (OpenAI, Anthropic, KServe gRPC) through the frontend, faults
// of the upstreams (refusals, a drop mid-stream, slowness, health) as a client sees them.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { bridgeTokenizer } from '../../../src/launch/bridge/index.js';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { BRIDGED_MODEL, startBridgedFrontend } from '../../support/bridged-frontend.js';
import { eventually, serveInProcess } from '../../support/in-process.js';
import { startStandIn, type StandIn, type StandInOptions } from '../../support/openai-upstream.js';
import { makeClient, textInput, texts, unary } from '../../frontends/grpc/harness.js';
import { freePort } from '../../support/processes.js';

const tokenizer = bridgeTokenizer(loadDefaultModelCard());
const TEXT = 'Hello from the engine behind the bridge, one token at a time.';
const ANSWER = await tokenizer.encode(TEXT);

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function standIn(options: Partial<StandInOptions> = {}): Promise<StandIn> {
  const s = await startStandIn({ kind: 'vllm', answer: ANSWER, ...options });
  cleanups.push(() => s.close());
  return s;
}

async function bridged(workerArgs: string[], frontendArgs: string[] = [], ready?: number) {
  const b = await startBridgedFrontend(workerArgs, frontendArgs, ready);
  cleanups.push(() => b.stop());
  return { ...b, openai: new OpenAI({ baseURL: `${b.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 }) };
}

test('vLLM-like upstream, token-in: streamed and unary chat and completions through the openai client', async () => {
  const up = await standIn();
  const { openai } = await bridged(['--upstream', up.url]);
  const stream = await openai.chat.completions.create({
    model: BRIDGED_MODEL,
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  assert.equal(text, TEXT);
  assert.equal(finish, 'stop');
  assert.equal(usage?.completion_tokens, ANSWER.length);
  const sent = up.requests[0]!.body;
  assert.ok(Array.isArray(sent.prompt) && sent.prompt.every((t) => typeof t === 'number'), 'the prompt goes up as token ids');
  assert.equal(usage?.prompt_tokens, (sent.prompt as number[]).length);

  const unaryAnswer = await openai.completions.create({ model: BRIDGED_MODEL, prompt: 'Once upon a time', max_tokens: 5, logprobs: 1 });
  assert.equal(unaryAnswer.choices[0]!.text, await tokenizer.decode(ANSWER.slice(0, 5)));
  assert.equal(unaryAnswer.choices[0]!.finish_reason, 'length');
  assert.deepEqual(unaryAnswer.choices[0]!.logprobs?.token_logprobs, [-0.25, -0.25, -0.25, -0.25, -0.25]);
  assert.equal(sent.stream, true);
  assert.equal(up.requests.at(-1)!.body.stream, false, 'a short unary request: one non-streamed upstream call');
});

test('an upstream 4xx reaches the client with its status and message', async () => {
  const up = await standIn({ refuseWith: { status: 400, message: 'This model does not support best_of > 1' } });
  const { openai } = await bridged(['--upstream', up.url]);
  await assert.rejects(
    openai.completions.create({ model: BRIDGED_MODEL, prompt: 'x', max_tokens: 3 }),
    (err: unknown) => err instanceof OpenAI.BadRequestError && /best_of > 1/.test(err.message),
  );
});

test('an upstream that dies mid-stream: migration moves the stream and the client sees one complete answer', async () => {
  const dying = await standIn({ dropAfter: 3 });
  const healthy = await standIn();
  const { openai } = await bridged(['--upstream', dying.url, '--upstream', healthy.url, '--migration-limit', '2']);
  // Round-robin sends one of the two requests to the dying upstream first.
  const whole = await tokenizer.decode(ANSWER.slice(0, 10));
  // The healthy upstream starts its answer again after the three tokens the dying one streamed.
  const moved = (await tokenizer.decode(ANSWER.slice(0, 3))) + (await tokenizer.decode(ANSWER.slice(0, 7)));
  const texts: string[] = [];
  for (let i = 0; i < 2; i++) {
    const stream = await openai.completions.create({ model: BRIDGED_MODEL, prompt: [1, 2, 3], max_tokens: 10, stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(finish, 'length');
    texts.push(text);
  }
  assert.deepEqual(texts.sort(), [whole, moved].sort(), 'each client saw one whole stream');
  assert.equal(dying.requests.length, 1, 'the dying upstream got one request');
  const resent = healthy.requests.find((r) => (r.body.prompt as number[]).length > 3);
  assert.ok(resent, 'the healthy upstream got the moved request');
  assert.deepEqual(resent.body.prompt, [1, 2, 3, ...ANSWER.slice(0, 3)], 'it continues after the tokens already streamed');
  assert.equal(resent.body.max_tokens, 7);
});

test('a client that goes away aborts the upstream request', async () => {
  const slow = await standIn({ answer: Array(500).fill(ANSWER[0]), pieceDelayMs: 20 });
  const { openai } = await bridged(['--upstream', slow.url]);
  const ctl = new AbortController();
  const stream = await openai.chat.completions.create(
    { model: BRIDGED_MODEL, messages: [{ role: 'user', content: 'go slow' }], stream: true },
    { signal: ctl.signal },
  );
  try {
    let n = 0;
    for await (const _ of stream) if (++n === 2) ctl.abort();
  } catch {
    // The client reports its own abort.
  }
  await eventually(() => slow.aborted === 1, 10_000, 'the upstream request to be aborted');
});

test('health: an unhealthy upstream leaves routing and comes back when it recovers', async () => {
  const a = await standIn();
  const b = await standIn();
  const { instances, openai } = await bridged(['--upstream', a.url, '--upstream', b.url]);
  a.healthy = false;
  await eventually(() => instances() === 1, 10_000, 'the unhealthy upstream to leave');
  const before = a.requests.length;
  for (let i = 0; i < 3; i++) await openai.completions.create({ model: BRIDGED_MODEL, prompt: 'x', max_tokens: 2 });
  assert.equal(a.requests.length, before, 'no request reaches the unhealthy upstream');
  a.healthy = true;
  await eventually(() => instances() === 2, 10_000, 'the upstream to come back');
});

test('an upstream down at start is registered once it comes up', async () => {
  const late = await standIn();
  late.healthy = false;
  const { instances } = await bridged(['--upstream', late.url], [], 0);
  assert.equal(instances(), 0);
  late.healthy = true;
  await eventually(() => instances() === 1, 10_000, 'the upstream to register');
});

test('text-only upstream: chat messages go to /v1/chat/completions, the text answer is streamed back', async () => {
  const up = await standIn({ kind: 'text', answer: ['Plain', ' text', ' answer.'] });
  const { openai } = await bridged(['--upstream', up.url, '--upstream-input', 'text']);
  const answer = await openai.chat.completions.create({ model: BRIDGED_MODEL, messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(answer.choices[0]!.message.content, 'Plain text answer.');
  assert.equal(up.requests[0]!.path, '/v1/chat/completions');
  assert.deepEqual(up.requests[0]!.body.messages, [{ role: 'user', content: 'hello' }]);
  const completion = await openai.completions.create({ model: BRIDGED_MODEL, prompt: 'The sky is', max_tokens: 8 });
  assert.equal(completion.choices[0]!.text, 'Plain text answer.');
  assert.equal(up.requests[1]!.body.prompt, 'The sky is');
});

test('Anthropic Messages and KServe gRPC through a bridged model', async () => {
  const up = await standIn();
  const { frontend, baseUrl } = await bridged(['--upstream', up.url], ['--enable-anthropic-api', '--kserve-grpc-server', '--grpc-port', String(await freePort())]);
  const anthropic = new Anthropic({ baseURL: baseUrl, apiKey: 'unused', maxRetries: 0 });
  const message = await anthropic.messages.create({ model: BRIDGED_MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  assert.deepEqual(message.content, [{ type: 'text', text: TEXT }]);
  assert.equal(message.stop_reason, 'end_turn');

  const client = makeClient(frontend.grpc!.grpcPort);
  cleanups.push(async () => client.close());
  const res = await unary<{ outputs: { name: string; contents: { bytes_contents: Buffer[] } }[] }>(client, 'ModelInfer', {
    model_name: BRIDGED_MODEL,
    inputs: [textInput('hello')],
  });
  assert.deepEqual(texts(res.outputs.find((o) => o.name === 'text_output')!), [TEXT]);
});

test('dynamo-ts serve as the upstream: its text answers are re-tokenized on the way back', async () => {
  const { service, baseUrl: upstreamUrl } = await serveInProcess(['--model-name', 'inner', '--mocker-output-text', TEXT, '--speedup-ratio', '100']);
  cleanups.push(() => service.stop());
  const { openai } = await bridged(['--upstream', upstreamUrl, '--upstream-model', 'inner']);
  const answer = await openai.chat.completions.create({ model: BRIDGED_MODEL, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(answer.choices[0]!.message.content, TEXT);
  assert.equal(answer.choices[0]!.finish_reason, 'stop');
});

test("--kv-events-endpoint: vLLM's ZMQ KV events are republished as the bridged instance's; without it the card asks for approximate routing", async () => {
  const { Publisher } = await import('zeromq');
  const { encode } = await import('@msgpack/msgpack');
  const { subscribeKvEvents } = await import('../../../src/runtime/index.js');
  const port = await freePort();
  const publisher = new Publisher();
  await publisher.bind(`tcp://127.0.0.1:${port}`);
  cleanups.push(async () => publisher.close());
  const withEvents = await standIn();
  const { worker, frontend } = await bridged(['--upstream', `${withEvents.url}@tcp://127.0.0.1:${port}`], ['--router-mode', 'kv']);
  const instance = worker.upstreams[0]!.instanceId!;
  const seen: { worker: bigint; hashes: bigint[] }[] = [];
  const off = await subscribeKvEvents(frontend.runtime.events, 'dynamo', 'backend', (e) => {
    const stored = typeof e.event.data === 'object' && 'stored' in e.event.data ? e.event.data.stored : null;
    if (stored) seen.push({ worker: e.worker_id, hashes: stored.blocks.map((b) => b.block_hash) });
  });
  cleanups.push(async () => off());
  const tokens = Array.from({ length: 32 }, (_, i) => 100 + i);
  const batch = encode({ ts: 1.5, events: [{ type: 'BlockStored', block_hashes: [11, 12], parent_block_hash: null, token_ids: tokens, block_size: 16, medium: 'GPU' }], data_parallel_rank: null });
  const seq = Buffer.alloc(8);
  // A subscriber that has just connected misses what was sent before: publish until it is seen.
  await eventually(() => {
    void publisher.send([Buffer.from(''), seq, Buffer.from(batch)]);
    return seen.length > 0;
  }, 20_000, 'the relayed KV event');
  assert.equal(seen[0]!.worker, instance);
  assert.deepEqual(seen[0]!.hashes, [11n, 12n]);
  const policyOf = (f: typeof frontend) => f.models.get(BRIDGED_MODEL).router.policy as unknown as { appliesEvents: boolean };
  assert.equal(policyOf(frontend).appliesEvents, true, 'an upstream with a publisher: exact KV routing');

  const without = await standIn();
  const plain = await bridged(['--upstream', without.url], ['--router-mode', 'kv']);
  assert.equal(policyOf(plain.frontend).appliesEvents, false, 'no publisher: approximate KV routing');
});
