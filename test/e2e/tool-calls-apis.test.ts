// Tool calls in the Responses API and Anthropic Messages end to end: `serve --dyn-tool-call-parser
// hermes --mocker-output echo-last-user`, so the engine answers with the user's text (a call in
// Hermes' format) through the real runtime, and the official clients see function_call items and
// tool_use blocks, unary and streamed (the streamed answer folds to the unary one), and a whole
// tool round trip.
import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { postJson, serveInProcess } from '../support/in-process.js';
import { sseEvents } from '../support/sse-events.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const ARGS = '{"city": "Paris", "days": [1, 2]}';
const BEFORE = 'Let me check.\n';
const ONE_CALL = `${BEFORE}<tool_call>\n{"name": "get_weather", "arguments": ${ARGS}}\n</tool_call>`;
const TWO_CALLS = `${ONE_CALL}\n<tool_call>\n{"name": "get_time", "arguments": {"zone": "CET"}}\n</tool_call>`;
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'array' } } };
const TIME_SCHEMA = { type: 'object', properties: { zone: { type: 'string' } } };

/** `value` with every id-like field and timestamp (fresh per answer) and the SDK's parse additions removed, at any depth. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (typeof value !== 'object' || value === null) return value;
  const dropped = new Set(['id', 'call_id', 'created_at', 'completed_at', 'parsed', 'parsed_output', 'parsed_arguments', 'output_parsed']);
  return Object.fromEntries(Object.entries(value).filter(([key]) => !dropped.has(key)).map(([key, v]) => [key, withoutIds(v)]));
}

describe('serve --dyn-tool-call-parser hermes: Responses', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let openai: OpenAI;
  const tools: OpenAI.Responses.FunctionTool[] = [
    { type: 'function', name: 'get_weather', parameters: WEATHER_SCHEMA, strict: false },
    { type: 'function', name: 'get_time', parameters: TIME_SCHEMA, strict: false },
  ];
  before(async () => {
    server = await serveInProcess(['--dyn-tool-call-parser', 'hermes', '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000']);
    openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('responses.create: the text before as a message, then a function_call item', async () => {
    const response = await openai.responses.create({ model: MODEL, input: ONE_CALL, tools });
    assert.equal(response.status, 'completed');
    assert.deepEqual(
      response.output.map((item) => item.type),
      ['message', 'function_call'],
    );
    assert.equal(response.output_text, BEFORE);
    const call = response.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    assert.match(call.id!, /^fc_[0-9a-f]{32}$/);
    assert.match(call.call_id, /^call-/);
    assert.deepEqual({ name: call.name, arguments: call.arguments, status: call.status }, { name: 'get_weather', arguments: ARGS, status: 'completed' });
  });

  test('responses.stream: output_item.added, argument deltas, done events; the final response equals the unary one', async () => {
    const unary = await openai.responses.create({ model: MODEL, input: TWO_CALLS, tools });
    const stream = openai.responses.stream({ model: MODEL, input: TWO_CALLS, tools });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    stream.on('event', (event) => events.push(event));
    const final = await stream.finalResponse();
    assert.deepEqual(withoutIds(final), withoutIds(unary));
    assert.deepEqual(
      final.output.map((item) => item.type),
      ['message', 'function_call', 'function_call'],
    );
    assert.deepEqual(
      events.map((event) => event.sequence_number),
      events.map((_event, i) => i),
    );
    // Each call: added with empty arguments, its fragments, arguments.done, output_item.done.
    for (const [outputIndex, name, args] of [
      [1, 'get_weather', ARGS],
      [2, 'get_time', '{"zone": "CET"}'],
    ] as const) {
      const own = events.filter((event) => 'output_index' in event && event.output_index === outputIndex);
      const added = own[0] as OpenAI.Responses.ResponseOutputItemAddedEvent;
      assert.equal(added.type, 'response.output_item.added');
      assert.deepEqual({ ...added.item, id: undefined, call_id: undefined }, { type: 'function_call', status: 'in_progress', name, arguments: '', id: undefined, call_id: undefined });
      const deltas = own.filter((event) => event.type === 'response.function_call_arguments.delta');
      assert.ok(deltas.length >= 1);
      assert.equal(deltas.map((event) => event.delta).join(''), args);
      assert.deepEqual(
        own.slice(-2).map((event) => event.type),
        ['response.function_call_arguments.done', 'response.output_item.done'],
      );
      const done = own[own.length - 2] as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent;
      assert.equal(done.arguments, args);
      assert.equal(done.item_id, added.item.id);
      assert.equal(own.length, deltas.length + 3);
    }
    // The message closes before the first call opens.
    const messageDone = events.findIndex((event) => event.type === 'response.output_item.done');
    const firstCall = events.findIndex((event) => event.type === 'response.output_item.added' && event.output_index === 1);
    assert.ok(messageDone < firstCall);
  });

  test('a tool round trip: function_call and function_call_output items in, the final text out', async () => {
    const first = await openai.responses.create({ model: MODEL, input: ONE_CALL, tools });
    const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await openai.responses.create({
      model: MODEL,
      tools,
      input: [
        { role: 'user', content: ONE_CALL },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 22C' },
      ],
    });
    assert.deepEqual(
      second.output.map((item) => item.type),
      ['message'],
    );
    // Qwen3's template hands a tool's result to the model as the next user turn, which the engine echoes.
    assert.match(second.output_text, /Sunny, 22C/);
  });

  test('tool_choice none: no parsing, the call markup stays text', async () => {
    const response = await openai.responses.create({ model: MODEL, input: ONE_CALL, tools, tool_choice: 'none' });
    assert.deepEqual(
      response.output.map((item) => item.type),
      ['message'],
    );
    assert.equal(response.output_text, ONE_CALL);
  });

  test('a call cut off by max_output_tokens: the function_call item reads incomplete, as the response', async () => {
    const response = await openai.responses.create({ model: MODEL, input: ONE_CALL, tools, max_output_tokens: 20 });
    assert.equal(response.status, 'incomplete');
    const call = response.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    assert.equal(call.status, 'incomplete');
    assert.ok(call.arguments.length > 1 && ARGS.startsWith(call.arguments), call.arguments);
  });
});

describe('serve --dyn-tool-call-parser hermes: Anthropic Messages', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let anthropic: Anthropic;
  const tools: Anthropic.Tool[] = [
    { name: 'get_weather', description: 'The weather of a city', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema },
    { name: 'get_time', input_schema: TIME_SCHEMA as Anthropic.Tool.InputSchema },
  ];
  before(async () => {
    server = await serveInProcess([
      '--dyn-tool-call-parser', 'hermes', '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000', '--enable-anthropic-api',
    ]);
    anthropic = new Anthropic({ baseURL: server.baseUrl, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('messages.create: a text block, then tool_use blocks with the parsed input; stop_reason tool_use', async () => {
    const message = await anthropic.messages.create({ model: MODEL, max_tokens: 200, tools, messages: [{ role: 'user', content: TWO_CALLS }] });
    assert.equal(message.stop_reason, 'tool_use');
    assert.deepEqual(withoutIds(message.content), [
      { type: 'text', text: BEFORE },
      { type: 'tool_use', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } },
      { type: 'tool_use', name: 'get_time', input: { zone: 'CET' } },
    ]);
    const [, first, second] = message.content as Anthropic.ToolUseBlock[];
    assert.notEqual(first!.id, second!.id);
  });

  test('messages.stream: tool_use blocks start with an empty input, stream input_json_delta; finalMessage equals the unary answer', async () => {
    const params = { model: MODEL, max_tokens: 200, tools, messages: [{ role: 'user' as const, content: TWO_CALLS }] };
    const unary = await anthropic.messages.create(params);
    const stream = anthropic.messages.stream(params);
    const events: Anthropic.MessageStreamEvent[] = [];
    stream.on('streamEvent', (event) => events.push(event));
    const final = await stream.finalMessage();
    assert.deepEqual(withoutIds(final), withoutIds(unary));
    const starts = events.filter((event) => event.type === 'content_block_start');
    assert.deepEqual(
      starts.map((event) => (event.type === 'content_block_start' ? withoutIds(event.content_block) : null)),
      [{ type: 'text', text: '' }, { type: 'tool_use', name: 'get_weather', input: {} }, { type: 'tool_use', name: 'get_time', input: {} }],
    );
    const partial = (index: number): string =>
      events
        .map((event) => (event.type === 'content_block_delta' && event.index === index && event.delta.type === 'input_json_delta' ? event.delta.partial_json : ''))
        .join('');
    assert.equal(partial(1), ARGS);
    assert.equal(partial(2), '{"zone": "CET"}');
    // Each block stops before the next starts.
    const order = events.filter((event) => event.type.startsWith('content_block_') && event.type !== 'content_block_delta').map((event) => event.type);
    assert.deepEqual(order, ['content_block_start', 'content_block_stop', 'content_block_start', 'content_block_stop', 'content_block_start', 'content_block_stop']);
    const delta = events.find((event) => event.type === 'message_delta');
    assert.equal(delta?.type === 'message_delta' ? delta.delta.stop_reason : null, 'tool_use');
  });

  test('a tool round trip: tool_use, then tool_result, then the final text', async () => {
    const first = await anthropic.messages.create({ model: MODEL, max_tokens: 200, tools, messages: [{ role: 'user', content: ONE_CALL }] });
    const use = first.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    const second = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools,
      messages: [
        { role: 'user', content: ONE_CALL },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 22C' }] },
      ],
    });
    assert.equal(second.stop_reason, 'end_turn');
    assert.deepEqual(
      second.content.map((block) => block.type),
      ['text'],
    );
    assert.match((second.content[0] as Anthropic.TextBlock).text, /Sunny, 22C/);
  });

  test('tool_choice none: no parsing, the markup stays text', async () => {
    const none = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools,
      tool_choice: { type: 'none' },
      messages: [{ role: 'user', content: ONE_CALL }],
    });
    assert.deepEqual(none.content, [{ type: 'text', text: ONE_CALL }]);
    assert.equal(none.stop_reason, 'end_turn');
  });

  test('the raw stream: each tool_use block is announced whole, its arguments only as partial_json', async () => {
    const res = await postJson(server.baseUrl, '/v1/messages', {
      model: MODEL,
      max_tokens: 200,
      stream: true,
      tools,
      messages: [{ role: 'user', content: ONE_CALL }],
    });
    assert.equal(res.status, 200);
    const events = sseEvents(await res.text());
    const start = events.find((e) => e.event === 'content_block_start' && (e.data.content_block as { type: string }).type === 'tool_use');
    const block = start!.data.content_block as Record<string, unknown>;
    assert.deepEqual(Object.keys(block).sort(), ['id', 'input', 'name', 'type']);
    assert.equal(start!.data.index, 1);
  });
});
