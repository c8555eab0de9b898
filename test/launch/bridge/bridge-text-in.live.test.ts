// Text-in bridging in front of an engine that parses its own output (vLLM's chat API with a
// reasoning parser and a tool parser): the reasoning, the tool calls and the logprobs it streams
// reach the client as the engine made them, through chat (streamed and unary), Responses and
// Anthropic Messages, and the frontend parses none of them again.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { BRIDGED_MODEL, startBridgedFrontend } from '../../support/bridged-frontend.js';
import { startStandIn, type ScriptedDelta, type StandIn } from '../../support/openai-upstream.js';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const tok = (token: string, logprob: number, other: string) => ({ token, logprob, top: [{ token, logprob }, { token: other, logprob: logprob - 2 }] });

const REASONING = ['The user wants', ' the weather.'];
const CONTENT = 'Let me check <tool_call> now.';
const DELTAS: ScriptedDelta[] = [
  { delta: { role: 'assistant', content: '' } },
  { delta: { reasoning_content: REASONING[0] }, tokens: [tok('The', -0.5, 'A'), tok(' user', -0.25, ' person'), tok(' wants', -0.125, ' asks')] },
  { delta: { reasoning_content: REASONING[1] }, tokens: [tok(' the', -0.5, ' a'), tok(' weather.', -1, ' time.')] },
  // Text that looks like a tool call but is content: the engine said so.
  { delta: { content: CONTENT }, tokens: [tok('Let me check', -0.75, 'I will'), tok(' <tool_call> now.', -0.5, '.')] },
  { delta: { tool_calls: [{ index: 0, id: 'chatcmpl-tool-a', type: 'function', function: { name: 'get_weather', arguments: '' } }] } },
  { delta: { tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] } },
  { delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] } },
  { delta: { tool_calls: [{ index: 1, id: 'chatcmpl-tool-b', type: 'function', function: { name: 'get_time', arguments: '{"tz": "CET"}' } }] } },
  { delta: {} },
];
const CALLS = [
  { id: 'chatcmpl-tool-a', name: 'get_weather', arguments: '{"city": "Paris"}' },
  { id: 'chatcmpl-tool-b', name: 'get_time', arguments: '{"tz": "CET"}' },
];
const TOOLS: OpenAI.ChatCompletionTool[] = ['get_weather', 'get_time'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { city: { type: 'string' }, tz: { type: 'string' } } } },
}));
const MESSAGES: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];

/** Every token's logprob entry as the engine sent it (top_logprobs 2 asked). */
const LOGPROBS = DELTAS.flatMap((d) => d.tokens ?? []).map((t) => ({
  token: t.token,
  logprob: t.logprob,
  bytes: [...Buffer.from(t.token)],
  top_logprobs: t.top!.map((alt) => ({ ...alt, bytes: [...Buffer.from(alt.token)] })),
}));

let upstream: StandIn;
let openai: OpenAI;
let baseUrl: string;

async function setUp(): Promise<void> {
  if (openai) return;
  upstream = await startStandIn({ kind: 'text', answer: [], chatDeltas: DELTAS, finish: 'tool_calls' });
  cleanups.push(() => upstream.close());
  // The bridge names no parsers: the engine parses.
  const b = await startBridgedFrontend(['--upstream', upstream.url, '--upstream-input', 'text'], ['--enable-anthropic-api']);
  cleanups.push(() => b.stop());
  baseUrl = b.baseUrl;
  openai = new OpenAI({ baseURL: `${b.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
}

interface ReasoningDelta {
  reasoning_content?: string;
}

test('streamed chat: the engine-parsed reasoning, tool-call deltas and logprobs reach the openai client', async () => {
  await setUp();
  const stream = await openai.chat.completions.create({
    model: BRIDGED_MODEL,
    messages: MESSAGES,
    tools: TOOLS,
    logprobs: true,
    top_logprobs: 2,
    stream: true,
    stream_options: { include_usage: true },
    chat_template_kwargs: { enable_thinking: true },
  } as OpenAI.ChatCompletionCreateParamsStreaming);
  let reasoning = '';
  let content = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  const logprobs: unknown[] = [];
  let deltasWithCalls = 0;
  for await (const chunk of stream) {
    usage = chunk.usage ?? usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    reasoning += (choice.delta as ReasoningDelta).reasoning_content ?? '';
    content += choice.delta.content ?? '';
    finish = choice.finish_reason ?? finish;
    logprobs.push(...(choice.logprobs?.content ?? []));
    if (choice.delta.tool_calls) deltasWithCalls++;
    for (const call of choice.delta.tool_calls ?? []) {
      const seen = (calls[call.index] ??= { arguments: '' });
      if (call.id) seen.id = call.id;
      if (call.function?.name) seen.name = call.function.name;
      seen.arguments += call.function?.arguments ?? '';
    }
  }
  assert.equal(reasoning, REASONING.join(''));
  assert.equal(content, CONTENT);
  assert.deepEqual(calls, CALLS);
  assert.equal(deltasWithCalls, 4, 'each tool-call delta streamed as it came');
  assert.equal(finish, 'tool_calls');
  assert.deepEqual(logprobs, LOGPROBS);
  assert.equal(usage?.completion_tokens, DELTAS.length, "the engine's own usage");

  const sent = upstream.requests.at(-1)!;
  assert.equal(sent.path, '/v1/chat/completions');
  assert.deepEqual(sent.body.messages, MESSAGES);
  assert.deepEqual(sent.body.tools, TOOLS);
  assert.equal(sent.body.logprobs, true);
  assert.equal(sent.body.top_logprobs, 2);
  assert.equal((sent.body.chat_template_kwargs as { enable_thinking?: unknown }).enable_thinking, true, 'the template arguments go up');
});

test('unary chat: the message carries the engine-parsed reasoning, tool calls and logprobs', async () => {
  await setUp();
  const answer = await openai.chat.completions.create({ model: BRIDGED_MODEL, messages: MESSAGES, tools: TOOLS, logprobs: true, top_logprobs: 2 });
  const choice = answer.choices[0]!;
  assert.equal((choice.message as ReasoningDelta).reasoning_content, REASONING.join(''));
  assert.equal(choice.message.content, CONTENT);
  assert.deepEqual(
    choice.message.tool_calls?.map((c) => (c.type === 'function' ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : null)),
    CALLS,
  );
  assert.equal(choice.finish_reason, 'tool_calls');
  assert.deepEqual(choice.logprobs?.content, LOGPROBS);
});

test('tool_choice required and parallel_tool_calls go to the engine, which answers them; the frontend adds no parser of its own', async () => {
  await setUp();
  const answer = await openai.chat.completions.create({
    model: BRIDGED_MODEL,
    messages: MESSAGES,
    tools: TOOLS,
    tool_choice: 'required',
    parallel_tool_calls: true,
  });
  const sent = upstream.requests.at(-1)!.body;
  assert.equal(sent.tool_choice, 'required');
  assert.equal(sent.parallel_tool_calls, true);
  assert.equal(answer.choices[0]!.message.content, CONTENT, 'the content is not read as the guided tool-call JSON');
  assert.deepEqual(answer.choices[0]!.message.tool_calls?.map((c) => (c.type === 'function' ? c.function.name : null)), ['get_weather', 'get_time']);
  assert.equal(answer.choices[0]!.finish_reason, 'tool_calls');
});

test('Responses API: reasoning, message and function_call items from the engine-parsed answer', async () => {
  await setUp();
  const response = await openai.responses.create({
    model: BRIDGED_MODEL,
    input: 'Weather and time in Paris?',
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
  });
  const kinds = response.output.map((item) => item.type);
  assert.deepEqual(kinds, ['reasoning', 'message', 'function_call', 'function_call']);
  const calls = response.output.filter((item) => item.type === 'function_call');
  assert.deepEqual(
    calls.map((c) => (c.type === 'function_call' ? [c.name, c.arguments] : null)),
    CALLS.map((c) => [c.name, c.arguments]),
  );
  assert.equal(response.output_text, CONTENT);
});

test('Anthropic Messages: thinking, text and tool_use blocks from the engine-parsed answer, streamed as unary', async () => {
  await setUp();
  const anthropic = new Anthropic({ baseURL: baseUrl, apiKey: 'unused', maxRetries: 0 });
  const params = {
    model: BRIDGED_MODEL,
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: 'Weather and time in Paris?' }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }],
  };
  const message = await anthropic.messages.create(params);
  const expected = [
    { type: 'thinking', thinking: REASONING.join('') },
    { type: 'text', text: CONTENT },
    ...CALLS.map((c) => ({ type: 'tool_use', name: c.name, input: JSON.parse(c.arguments) as unknown })),
  ];
  const shape = (blocks: Anthropic.ContentBlock[]) =>
    blocks.map((b) =>
      b.type === 'thinking' ? { type: b.type, thinking: b.thinking } : b.type === 'text' ? { type: b.type, text: b.text } : b.type === 'tool_use' ? { type: b.type, name: b.name, input: b.input } : b,
    );
  assert.deepEqual(shape(message.content), expected);
  assert.equal(message.stop_reason, 'tool_use');
  const streamed = await anthropic.messages.stream(params).finalMessage();
  assert.deepEqual(shape(streamed.content), expected);
  assert.equal(streamed.stop_reason, 'tool_use');
});

test('text-in completions: logprobs the engine names by text reach the client, entry by entry', async () => {
  const pieces = ['Plain', ' text', ' answer.'];
  const up = await startStandIn({ kind: 'text', answer: pieces });
  cleanups.push(() => up.close());
  const b = await startBridgedFrontend(['--upstream', up.url, '--upstream-input', 'text']);
  cleanups.push(() => b.stop());
  const client = new OpenAI({ baseURL: `${b.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const unary = await client.completions.create({ model: BRIDGED_MODEL, prompt: 'The sky is', max_tokens: 8, logprobs: 2 });
  const logprobs = unary.choices[0]!.logprobs!;
  assert.equal(unary.choices[0]!.text, pieces.join(''));
  assert.deepEqual(logprobs.tokens, pieces);
  assert.deepEqual(logprobs.token_logprobs, [-0.5, -0.5, -0.5]);
  assert.deepEqual(logprobs.top_logprobs, pieces.map((p) => ({ [p]: -0.5, '~': -4 })));
  assert.deepEqual(logprobs.text_offset, [0, 5, 10]);
  const stream = await client.completions.create({ model: BRIDGED_MODEL, prompt: 'The sky is', max_tokens: 8, logprobs: 1, stream: true });
  const streamed: string[] = [];
  for await (const chunk of stream) streamed.push(...(chunk.choices[0]?.logprobs?.tokens ?? []));
  assert.deepEqual(streamed, pieces);
});
