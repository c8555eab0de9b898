import assert from 'node:assert/strict';
import http from 'node:http';
import { after, test } from 'node:test';
import { OpenAiBridgeEngine, UpstreamHealth, type BridgeEngineOptions } from '../../../src/engines/openai-bridge/index.js';
import { bridgeTokenizer } from '../../../src/launch/bridge/index.js';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { OverloadedError, ValidationError, WorkerLostError, type LLMEngineOutput, type PreprocessedRequest } from '../../../src/protocols/index.js';
import { eventually } from '../../support/in-process.js';
import { startStandIn, type ScriptedDelta, type StandIn, type StandInOptions } from '../../support/openai-upstream.js';
import { HELLO, tokensRequest, WORLD } from '../../support/scripted-engines.js';

const tokenizer = bridgeTokenizer(loadDefaultModelCard());
const servers: StandIn[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function standIn(options: StandInOptions): Promise<StandIn> {
  const s = await startStandIn(options);
  servers.push(s);
  return s;
}

function engineFor(s: StandIn, over: Partial<BridgeEngineOptions> = {}): OpenAiBridgeEngine {
  return new OpenAiBridgeEngine({ url: s.url, model: 'up-model', input: 'tokens', tokenizer, responseTimeoutMs: 30_000, ...over });
}

async function collect(engine: OpenAiBridgeEngine, request: PreprocessedRequest, signal = new AbortController().signal): Promise<LLMEngineOutput[]> {
  const out: LLMEngineOutput[] = [];
  for await (const o of engine.generate(request, { requestId: 'r1', signal })) out.push(o);
  return out;
}

test('token-in: the prompt ids go up, the upstream token ids come back with finish and usage', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO, WORLD] });
  const out = await collect(engineFor(s), { ...tokensRequest([1, 2, 3], 8), stop_conditions: { max_tokens: 8, stop_token_ids: [7] }, sampling_options: { temperature: 0.5, seed: 3 } });
  assert.deepEqual(out.map((o) => o.token_ids), [[HELLO], [WORLD]]);
  assert.equal(out[1]!.finish_reason, 'eos');
  assert.deepEqual(out[1]!.completion_usage, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  const body = s.requests[0]!.body;
  assert.equal(s.requests[0]!.path, '/v1/completions');
  assert.deepEqual(body.prompt, [1, 2, 3]);
  assert.equal(body.model, 'up-model');
  assert.equal(body.return_token_ids, true);
  assert.equal(body.stream, true);
  assert.deepEqual(body.stop_token_ids, [7]);
  assert.equal(body.temperature, 0.5);
  assert.equal(body.seed, 3);
  assert.equal(body.max_tokens, 8);
});

test('token-in: a length finish and logprobs by token id are carried', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO, WORLD, HELLO] });
  const out = await collect(engineFor(s), { ...tokensRequest([1], 2), output_options: { logprobs: 2 } });
  assert.equal(s.requests[0]!.body.return_tokens_as_token_ids, true);
  assert.equal(out.at(-1)!.finish_reason, 'length');
  assert.deepEqual(out[0]!.log_probs, [-0.25]);
  assert.deepEqual(out[0]!.top_logprobs, [[{ rank: 1, token_id: HELLO, token: null, logprob: -0.25 }, { rank: 2, token_id: HELLO + 1, token: null, logprob: -1.5 }]]);
});

test('text-in: the prompt goes up as text and a text answer is re-tokenized', async () => {
  const s = await standIn({ kind: 'text', answer: ['Hello', ' world', '!'] });
  const prompt = await tokenizer.encode('Say hi');
  const out = await collect(engineFor(s, { input: 'text' }), { ...tokensRequest(prompt, 10), stop_conditions: { max_tokens: 10, stop: ['END'] } });
  assert.equal(s.requests[0]!.body.prompt, 'Say hi');
  assert.deepEqual(s.requests[0]!.body.stop, ['END']);
  assert.equal(await tokenizer.decode(out.flatMap((o) => o.token_ids)), 'Hello world!');
  assert.equal(out.at(-1)!.finish_reason, 'eos');
});

test('text-in: forwarded chat messages go to /v1/chat/completions', async () => {
  const s = await standIn({ kind: 'text', answer: ['Hi'] });
  const messages = [{ role: 'user', content: 'hello' }];
  const out = await collect(engineFor(s, { input: 'text' }), { ...tokensRequest([1, 2], 5), extra_args: { messages } });
  assert.equal(s.requests[0]!.path, '/v1/chat/completions');
  assert.deepEqual(s.requests[0]!.body.messages, messages);
  assert.equal(await tokenizer.decode(out.flatMap((o) => o.token_ids)), 'Hi');
});

/** A chat answer as vLLM streams it with its reasoning and tool parsers on. */
const PARSED_CHAT: ScriptedDelta[] = [
  { delta: { role: 'assistant', content: '' } },
  { delta: { reasoning: 'Hmm.' }, tokens: [{ token: 'Hmm.', logprob: -1, top: [{ token: 'Hmm.', logprob: -1 }] }] },
  { delta: { content: 'Hi <b>' }, tokens: [{ token: 'Hi', logprob: -0.5 }, { token: ' <b>', logprob: -0.25 }] },
  { delta: { tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] } },
];

test('text-in chat: the engine text, reasoning, tool calls and text-named logprobs come back as they are', async () => {
  const s = await standIn({ kind: 'text', answer: [], finish: 'tool_calls', chatDeltas: PARSED_CHAT });
  const messages = [{ role: 'user', content: 'hello' }];
  const request = { ...tokensRequest([1, 2], 5), output_options: { logprobs: 1 }, extra_args: { messages, tool_choice: 'auto', chat_template_args: { enable_thinking: true } } };
  const out = await collect(engineFor(s, { input: 'text' }), request);
  assert.deepEqual(
    out.map((o) => [o.text, o.reasoning_content ?? null, o.tool_calls ?? null, o.tokens ?? null]),
    [
      ['', 'Hmm.', null, ['Hmm.']],
      ['Hi <b>', null, null, ['Hi', ' <b>']],
      ['', null, [{ index: 0, id: 't1', name: 'f', arguments: '{"a":1}' }], null],
    ],
  );
  assert.deepEqual(out[1]!.log_probs, [-0.5, -0.25]);
  assert.deepEqual(out[0]!.top_logprobs, [[{ rank: 1, token_id: -1, token: 'Hmm.', logprob: -1, bytes: [...Buffer.from('Hmm.')] }]]);
  assert.equal(await tokenizer.decode(out[1]!.token_ids), 'Hi <b>', 'ids count the text the engine wrote');
  assert.equal(out.at(-1)!.finish_reason, 'eos');
  const body = s.requests[0]!.body;
  assert.equal(body.tool_choice, 'auto');
  assert.deepEqual(body.chat_template_kwargs, { enable_thinking: true });
  assert.equal(body.logprobs, true);
  assert.equal(body.top_logprobs, 1);
});

test('a 4xx keeps its status and the engine message; 429 is overload; a 5xx is a lost worker', async () => {
  const bad = await standIn({ kind: 'vllm', answer: [], refuseWith: { status: 400, message: 'max_tokens is too large' } });
  await assert.rejects(collect(engineFor(bad), tokensRequest([1], 2)), (err: unknown) => err instanceof ValidationError && err.message === 'max_tokens is too large');
  const notFound = await standIn({ kind: 'vllm', answer: [], refuseWith: { status: 404, message: 'The model `x` does not exist.' } });
  await assert.rejects(collect(engineFor(notFound), tokensRequest([1], 2)), (err: unknown) => (err as ValidationError).httpStatus === 404);
  const busy = await standIn({ kind: 'vllm', answer: [], refuseWith: { status: 429, message: 'slow down' } });
  await assert.rejects(collect(engineFor(busy), tokensRequest([1], 2)), OverloadedError);
  const broken = await standIn({ kind: 'vllm', answer: [], refuseWith: { status: 500, message: 'CUDA error' } });
  await assert.rejects(collect(engineFor(broken), tokensRequest([1], 2)), WorkerLostError);
});

test('a connection refused, or dropped mid-stream, is a lost worker', async () => {
  const gone = await standIn({ kind: 'vllm', answer: [] });
  await gone.close();
  await assert.rejects(collect(engineFor(gone), tokensRequest([1], 2)), /unreachable/);
  const dropping = await standIn({ kind: 'vllm', answer: [HELLO, WORLD, HELLO], dropAfter: 1 });
  const seen: LLMEngineOutput[] = [];
  await assert.rejects(async () => {
    for await (const o of engineFor(dropping).generate(tokensRequest([1], 5), { requestId: 'r', signal: new AbortController().signal })) seen.push(o);
  }, WorkerLostError);
  assert.deepEqual(seen.map((o) => o.token_ids), [[HELLO]]);
});

test('a slow upstream: the response timeout is a lost worker; an abort cancels the upstream request', async () => {
  const slow = await standIn({ kind: 'vllm', answer: [HELLO], headerDelayMs: 5_000 });
  await assert.rejects(collect(engineFor(slow, { responseTimeoutMs: 50 }), tokensRequest([1], 2)), /did not answer within 50 ms/);
  const trickle = await standIn({ kind: 'vllm', answer: Array(1000).fill(HELLO), pieceDelayMs: 20 });
  const ctl = new AbortController();
  const got: LLMEngineOutput[] = [];
  for await (const o of engineFor(trickle).generate(tokensRequest([1], 1000), { requestId: 'r', signal: ctl.signal })) {
    got.push(o);
    if (got.length === 2) ctl.abort();
  }
  await eventually(() => trickle.aborted === 1, 10_000, 'the upstream request to be aborted');
  assert.equal(trickle.active, 0);
});

test('a consumer that leaves while waiting for the answer head: the upstream request is closed when the head comes', async () => {
  const s = await standIn({ kind: 'vllm', answer: Array(50).fill(HELLO), headerDelayMs: 200, pieceDelayMs: 20 });
  const it = engineFor(s).generate(tokensRequest([1], 50), { requestId: 'r', signal: new AbortController().signal })[Symbol.asyncIterator]();
  const pending = it.next();
  await it.return!();
  assert.deepEqual(await pending, { done: true, value: undefined });
  await eventually(() => s.aborted === 1, 10_000, 'the upstream request to be closed');
  assert.equal(s.active, 0);
});

test('extra headers (the upstream API key) go with every request', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO] });
  await collect(engineFor(s, { headers: { authorization: 'Bearer sk-up' } }), tokensRequest([1], 2));
  assert.equal(s.requests[0]!.headers.authorization, 'Bearer sk-up');
});

test('health: one failed probe does not take a healthy upstream down; three in a row do', async () => {
  const s = await standIn({ kind: 'vllm', answer: [] });
  const changes: boolean[] = [];
  const health = new UpstreamHealth({ baseUrl: s.url, intervalMs: 1_000_000, timeoutMs: 1000, onChange: (h) => void changes.push(h) });
  // The interval is long: the probes are driven one at a time with check().
  await health.start();
  s.healthy = false;
  await health.check();
  await health.check();
  assert.deepEqual(changes, [true], 'two failures: still up');
  await health.check();
  assert.deepEqual(changes, [true, false]);
  s.healthy = true;
  await health.check();
  assert.deepEqual(changes, [true, false, true], 'one good probe brings it back');
  health.stop();
});

test('health: /health decides, /v1/models stands in where it is missing, and changes are told', async () => {
  const s = await standIn({ kind: 'vllm', answer: [], noHealthRoute: true });
  const changes: boolean[] = [];
  const health = new UpstreamHealth({ baseUrl: s.url, intervalMs: 20, timeoutMs: 1000, onChange: (h) => void changes.push(h) });
  await health.start();
  assert.deepEqual(changes, [true]);
  s.healthy = false;
  await eventually(() => changes.length === 2, 10_000, 'unhealthy');
  s.healthy = true;
  await eventually(() => changes.length === 3, 10_000, 'healthy again');
  health.stop();
  assert.deepEqual(changes, [true, false, true]);
});

test('a connection reset before the answer is tried once more on a fresh connection; twice is a lost worker', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO, WORLD] });
  // In front of the stand-in: the first `resets` requests lose their connection unanswered.
  const front = async (resets: number): Promise<{ url: string; close(): Promise<void> }> => {
    let seen = 0;
    const server = http.createServer(async (req, res) => {
      if (seen++ < resets) return req.socket.destroy();
      const body = await new Promise<Buffer>((resolve) => {
        const parts: Buffer[] = [];
        req.on('data', (d: Buffer) => parts.push(d)).on('end', () => resolve(Buffer.concat(parts)));
      });
      const up = await fetch(`${s.url}${req.url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body.toString('utf8') });
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'text/event-stream' });
      res.end(Buffer.from(await up.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  };
  const once = await front(1);
  try {
    const out = await collect(new OpenAiBridgeEngine({ url: once.url, model: 'up-model', input: 'tokens', tokenizer, responseTimeoutMs: 30_000 }), tokensRequest([1, 2], 8));
    assert.deepEqual(out.map((o) => o.token_ids), [[HELLO], [WORLD]]);
  } finally {
    await once.close();
  }
  const twice = await front(2);
  try {
    await assert.rejects(
      collect(new OpenAiBridgeEngine({ url: twice.url, model: 'up-model', input: 'tokens', tokenizer, responseTimeoutMs: 30_000 }), tokensRequest([1, 2], 8)),
      (err: unknown) => err instanceof WorkerLostError && /ECONNRESET|UND_ERR_SOCKET|EPIPE/.test((err as Error).message),
    );
  } finally {
    await twice.close();
  }
});

/** A request whose client awaits one answer (the HTTP routes mark unary requests so). */
const unaryRequest = (tokenIds: number[], maxTokens: number): PreprocessedRequest => ({ ...tokensRequest(tokenIds, maxTokens), unary: true });

test('unary, token-in: one non-streamed call, one output with every id, the finish and the usage', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO, WORLD] });
  const out = await collect(engineFor(s), { ...unaryRequest([1, 2, 3], 8), stop_conditions: { max_tokens: 8, stop_token_ids: [7] } });
  assert.equal(out.length, 1);
  assert.deepEqual(out[0]!.token_ids, [HELLO, WORLD]);
  assert.equal(out[0]!.finish_reason, 'eos');
  assert.deepEqual(out[0]!.completion_usage, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  const { body, headers, path } = s.requests[0]!;
  assert.equal(path, '/v1/completions');
  assert.equal(body.stream, false);
  assert.equal(body.stream_options, undefined);
  assert.equal(headers.accept, 'application/json');
  assert.deepEqual(body.prompt, [1, 2, 3]);
  assert.equal(body.return_token_ids, true);
  assert.deepEqual(body.stop_token_ids, [7]);
});

test('unary, token-in: a length finish and logprobs by token id, over every token', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO, WORLD, HELLO] });
  const out = await collect(engineFor(s), { ...unaryRequest([1], 2), output_options: { logprobs: 1 } });
  assert.equal(out.length, 1);
  assert.deepEqual(out[0]!.token_ids, [HELLO, WORLD]);
  assert.equal(out[0]!.finish_reason, 'length');
  assert.deepEqual(out[0]!.log_probs, [-0.25, -0.25]);
  assert.deepEqual(out[0]!.top_logprobs, [[{ rank: 1, token_id: HELLO, token: null, logprob: -0.25 }], [{ rank: 1, token_id: WORLD, token: null, logprob: -0.25 }]]);
});

test('unary, token-in: a server that refuses return_token_ids is asked again without it, and its text re-tokenized', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO, WORLD], refuseField: 'return_token_ids' });
  const engine = engineFor(s);
  const out = await collect(engine, unaryRequest([1], 8));
  assert.equal(out.length, 1);
  assert.equal(await tokenizer.decode(out[0]!.token_ids), `<${HELLO}><${WORLD}>`);
  assert.deepEqual(s.requests.map((r) => r.body.return_token_ids), [true, undefined]);
  await collect(engine, unaryRequest([1], 8));
  assert.equal(s.requests[2]!.body.return_token_ids, undefined, 'never sent again');
});

test('unary requests the frontend may stop itself, or long ones, still stream', async () => {
  const s = await standIn({ kind: 'vllm', answer: [HELLO, WORLD] });
  const engine = engineFor(s);
  await collect(engine, { ...unaryRequest([1], 8), stop_conditions: { max_tokens: 8, stop: ['.'] } });
  await collect(engine, { ...unaryRequest([1], 8), stop_conditions: { max_tokens: 8, stop_token_ids_visible: [5] } });
  await collect(engine, unaryRequest([1], 100_000));
  await collect(engine, tokensRequest([1], 8));
  assert.deepEqual(s.requests.map((r) => r.body.stream), [true, true, true, true]);
});

test('unary, text-in: the prompt goes up as text and the whole text answer comes back as one output', async () => {
  const s = await standIn({ kind: 'text', answer: ['Hello', ' world', '!'] });
  const prompt = await tokenizer.encode('Say hi');
  const out = await collect(engineFor(s, { input: 'text' }), { ...unaryRequest(prompt, 10), stop_conditions: { max_tokens: 10, stop: ['END'] } });
  const body = s.requests[0]!.body;
  assert.equal(body.stream, false);
  assert.equal(body.prompt, 'Say hi');
  assert.deepEqual(body.stop, ['END'], 'text-in, the engine applies stop strings: the call is whole');
  assert.equal(out.length, 1);
  assert.equal(out[0]!.text, 'Hello world!');
  assert.equal(await tokenizer.decode(out[0]!.token_ids), 'Hello world!');
  assert.equal(out[0]!.finish_reason, 'eos');
});

test('unary, text-in chat: the message text, reasoning, tool calls and text-named logprobs in one output', async () => {
  const s = await standIn({ kind: 'text', answer: [], finish: 'tool_calls', chatDeltas: PARSED_CHAT });
  const messages = [{ role: 'user', content: 'hello' }];
  const out = await collect(engineFor(s, { input: 'text' }), { ...unaryRequest([1, 2], 5), output_options: { logprobs: 1 }, extra_args: { messages } });
  assert.equal(s.requests[0]!.path, '/v1/chat/completions');
  assert.equal(s.requests[0]!.body.stream, false);
  assert.equal(out.length, 1);
  const o = out[0]!;
  assert.equal(o.text, 'Hi <b>');
  assert.equal(o.reasoning_content, 'Hmm.');
  assert.deepEqual(o.tool_calls, [{ index: 0, id: 't1', name: 'f', arguments: '{"a":1}' }]);
  assert.deepEqual(o.tokens, ['Hmm.', 'Hi', ' <b>']);
  assert.deepEqual(o.log_probs, [-1, -0.5, -0.25]);
  assert.equal(o.finish_reason, 'eos');
  assert.deepEqual(o.completion_usage, { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 });
});

test('unary: a 4xx keeps its status, a 5xx, a malformed body or a body cut short is a lost worker', async () => {
  const bad = await standIn({ kind: 'vllm', answer: [], refuseWith: { status: 400, message: 'max_tokens is too large' } });
  await assert.rejects(collect(engineFor(bad), unaryRequest([1], 2)), (err: unknown) => err instanceof ValidationError && err.message === 'max_tokens is too large');
  const broken = await standIn({ kind: 'vllm', answer: [], refuseWith: { status: 503, message: 'overloaded engine' } });
  await assert.rejects(collect(engineFor(broken), unaryRequest([1], 2)), WorkerLostError);
  const garbled = await standIn({ kind: 'vllm', answer: [HELLO, WORLD], malformedWhole: true });
  await assert.rejects(collect(engineFor(garbled), unaryRequest([1], 2)), (err: unknown) => err instanceof WorkerLostError && /malformed answer/.test(err.message));
  const cut = await standIn({ kind: 'vllm', answer: [HELLO, WORLD], dropAfter: 1 });
  await assert.rejects(collect(engineFor(cut), unaryRequest([1], 2)), (err: unknown) => err instanceof WorkerLostError && /dropped the answer/.test(err.message));
});

test('unary: the response timeout is a lost worker; an abort while waiting cancels the upstream request', async () => {
  const slow = await standIn({ kind: 'vllm', answer: [HELLO], headerDelayMs: 5_000 });
  await assert.rejects(collect(engineFor(slow, { responseTimeoutMs: 50 }), unaryRequest([1], 2)), /did not answer within 50 ms/);
  const trickle = await standIn({ kind: 'vllm', answer: Array(200).fill(HELLO), pieceDelayMs: 20 });
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(), 100);
  const out = await collect(engineFor(trickle), unaryRequest([1], 200), ctl.signal);
  assert.deepEqual(out, [], 'an aborted request ends without output');
  await eventually(() => trickle.aborted === 1, 10_000, 'the upstream request to be aborted');
  assert.equal(trickle.active, 0);
});

test('unary: an abort while the answer body is arriving closes the connection and ends without output', { timeout: 30_000 }, async () => {
  let closed = false;
  let answering = false;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{"id":"cmpl-1","choices":[', () => (answering = true));
    });
    res.on('close', () => (closed = true));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const engine = new OpenAiBridgeEngine({ url: `http://127.0.0.1:${port}`, model: 'up-model', input: 'tokens', tokenizer, responseTimeoutMs: 30_000 });
    const ctl = new AbortController();
    const it = engine.generate(unaryRequest([1], 4), { requestId: 'r', signal: ctl.signal })[Symbol.asyncIterator]();
    const next = it.next();
    // The head and the body's first bytes are on the wire: the answer is being read when the abort comes.
    await eventually(() => answering, 10_000, 'the answer to start');
    await new Promise((r) => setTimeout(r, 50));
    ctl.abort();
    assert.deepEqual(await next, { value: undefined, done: true });
    await eventually(() => closed, 10_000, 'the upstream connection to close');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
