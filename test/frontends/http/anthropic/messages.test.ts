import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpService } from '../../../../src/frontends/http/index.js';
import { OverloadedError, type EngineClient, type LLMEngineOutput, type PreprocessedRequest } from '../../../../src/protocols/index.js';
import { injectedHttpWithEngines } from '../../../support/http-with-engines.js';
import { fetchFor } from '../../../support/injected-fetch.js';
import { failingAfterHelloEngine, helloWorldEngine } from '../../../support/scripted-engines.js';
import { postJson, serveInjected } from '../../../support/in-process.js';
import { sseEvents } from '../../../support/sse-events.js';

function overloadedEngine(): EngineClient {
  return {
    // eslint-disable-next-line require-yield
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      throw new OverloadedError();
    },
  };
}

const USER_HELLO: Anthropic.MessageParam[] = [{ role: 'user', content: 'hello' }];

/** A message as the server sent it, but for its id: the SDK adds `parsed_output` to a stream's final message. */
function comparable(message: Anthropic.Message): Record<string, unknown> {
  const { id: _id, parsed_output: _parsed, ...rest } = message as Anthropic.Message & { parsed_output?: unknown };
  return rest;
}

describe('POST /v1/messages on scripted engines', () => {
  let http: HttpService;
  let baseUrl: string;
  let client: Anthropic;
  const seen: PreprocessedRequest[] = [];
  const last = (): PreprocessedRequest => seen[seen.length - 1]!;

  before(async () => {
    ({ http, baseUrl } = await injectedHttpWithEngines(
      { scripted: helloWorldEngine(seen), overloaded: overloadedEngine(), failing: failingAfterHelloEngine() },
      { anthropicApi: { stripPreamble: true } },
    ));
    client = new Anthropic({ baseURL: baseUrl, fetch: fetchFor(baseUrl), apiKey: 'test-key', maxRetries: 0 });
  });
  after(async () => http.shutdown());

  test('messages.create: the Message object with text, end_turn and usage; sampling settings reach the engine', async () => {
    // Sampling fields outside this SDK's typed params go in as a plain body.
    const params = { model: 'scripted', max_tokens: 50, messages: USER_HELLO, temperature: 0.5, top_p: 0.9, top_k: 20 };
    const message = await client.messages.create(params);
    assert.match(message.id, /^msg_[0-9a-f]{32}$/);
    assert.equal(message.type, 'message');
    assert.equal(message.role, 'assistant');
    assert.equal(message.model, 'scripted');
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hello world' }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.stop_sequence, null);
    assert.equal(message.usage.output_tokens, 2);
    assert.ok(message.usage.input_tokens > 0);
    assert.equal(last().stop_conditions.max_tokens, 50);
    assert.equal(last().sampling_options.temperature, 0.5);
    assert.equal(last().sampling_options.top_p, 0.9);
    assert.equal(last().sampling_options.top_k, 20);
  });

  test('max_tokens reached reads max_tokens; a user stop sequence reads stop_sequence with the sequence', async () => {
    const short = await client.messages.create({ model: 'scripted', max_tokens: 1, messages: USER_HELLO });
    assert.equal(short.stop_reason, 'max_tokens');
    assert.deepEqual(short.content, [{ type: 'text', text: 'Hello' }]);
    const stopped = await client.messages.create({ model: 'scripted', max_tokens: 50, messages: USER_HELLO, stop_sequences: [' world'] });
    assert.equal(stopped.stop_reason, 'stop_sequence');
    assert.equal(stopped.stop_sequence, ' world');
    assert.deepEqual(stopped.content, [{ type: 'text', text: 'Hello' }]);
  });

  test('the raw stream: the exact event sequence, each data carrying its type', async () => {
    const res = await postJson(baseUrl, '/v1/messages', { model: 'scripted', max_tokens: 50, messages: USER_HELLO, stream: true });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const events = sseEvents(await res.text());
    assert.deepEqual(
      events.map((e) => e.event),
      ['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'],
    );
    for (const e of events) assert.equal(e.data.type, e.event);
    const start = events[0]!.data.message as Record<string, unknown>;
    assert.deepEqual(start.content, []);
    assert.equal(start.stop_reason, null);
    assert.deepEqual(events[2]!.data, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    assert.deepEqual(events[3]!.data, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } });
    assert.deepEqual(events[5]!.data, { type: 'content_block_stop', index: 0 });
    const delta = events[6]!.data;
    assert.deepEqual(delta.delta, { stop_reason: 'end_turn', stop_sequence: null, stop_details: null });
    assert.equal((delta.usage as { output_tokens: number }).output_tokens, 2);
  });

  test('messages.stream: finalMessage() equals the unary answer but for the id', async () => {
    const params = { model: 'scripted', max_tokens: 50, messages: USER_HELLO };
    const unary = await client.messages.create(params);
    const texts: string[] = [];
    const stream = client.messages.stream(params).on('text', (text) => texts.push(text));
    const final = await stream.finalMessage();
    assert.deepEqual(texts, ['Hello', ' world']);
    assert.deepEqual(comparable(final), comparable(unary));
  });

  test('system, thinking, tool_use and tool_result blocks are rendered into the prompt as the equivalent chat request is', async () => {
    const tools = [{ name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }];
    await client.messages.create({
      model: 'scripted',
      max_tokens: 10,
      system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=1.0.0;' }, { type: 'text', text: 'You are terse.' }],
      tools,
      tool_choice: { type: 'auto' },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should call the tool.', signature: 'sig' },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18C and sunny' }] }] },
      ],
    });
    const viaMessages = last().token_ids;
    const chat = await postJson(baseUrl, '/v1/chat/completions', {
      model: 'scripted',
      max_tokens: 10,
      tool_choice: 'auto',
      tools: tools.map(({ name, description, input_schema }) => ({ type: 'function', function: { name, description, parameters: input_schema } })),
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: 'Let me check.', reasoning_content: 'I should call the tool.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18C and sunny' },
      ],
    });
    assert.equal(chat.status, 200);
    assert.deepEqual(viaMessages, last().token_ids);
  });

  test('thinking blocks reach the template, which keeps them inside the current tool loop (Qwen3)', async () => {
    const turn = (thinking: boolean): Anthropic.MessageParam[] => [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [
          ...(thinking ? [{ type: 'thinking' as const, thinking: 'The user wants the weather; call the tool.', signature: 'sig' }] : []),
          { type: 'tool_use' as const, id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' }] },
    ];
    const withThinking = await client.messages.countTokens({ model: 'scripted', messages: turn(true) });
    const without = await client.messages.countTokens({ model: 'scripted', messages: turn(false) });
    assert.ok(withThinking.input_tokens > without.input_tokens + 5, `${withThinking.input_tokens} vs ${without.input_tokens}`);
  });

  test('messages.countTokens: the prompt tokens the generation is charged for', async () => {
    const body = { model: 'scripted', system: 'Be brief.', messages: USER_HELLO };
    const counted = await client.messages.countTokens(body);
    const message = await client.messages.create({ ...body, max_tokens: 5 });
    assert.ok(counted.input_tokens > 0);
    assert.equal(counted.input_tokens, message.usage.input_tokens);
  });

  test('errors before the stream in Anthropic\'s envelope: missing max_tokens, unknown model, overload', async () => {
    const missing = await postJson(baseUrl, '/v1/messages', { model: 'scripted', messages: USER_HELLO });
    assert.equal(missing.status, 400);
    assert.deepEqual(await missing.json(), { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: field required' } });

    await assert.rejects(client.messages.create({ model: 'nope', max_tokens: 5, messages: USER_HELLO }), (err: unknown) => {
      assert.ok(err instanceof Anthropic.NotFoundError);
      assert.deepEqual((err.error as { error: { type: string } }).error.type, 'not_found_error');
      return true;
    });
    await assert.rejects(client.messages.create({ model: 'overloaded', max_tokens: 5, messages: USER_HELLO }), (err: unknown) => {
      assert.ok(err instanceof Anthropic.APIError);
      assert.equal(err.status, 529);
      assert.deepEqual(err.error, { type: 'error', error: { type: 'overloaded_error', message: 'Service temporarily overloaded' } });
      return true;
    });
  });

  test('§5.6 validation: block shapes, unknown block types and server tools, sampling ranges, unknown fields, bad JSON', async () => {
    const cases: [unknown, number, string, RegExp][] = [
      [{ messages: [{ role: 'user', content: ['hi'] }] }, 400, 'invalid_request_error', /content blocks must be objects/],
      [{ messages: [{ role: 'user', content: [] }] }, 400, 'invalid_request_error', /must contain at least one content block/],
      [{ messages: [{ role: 'user', content: [{ type: 'future_block_type' }] }] }, 400, 'invalid_request_error', /messages\[0\]\.content\[0\]\.type: content block type "future_block_type" is not supported here \(supported: text, image, document, search_result, tool_use/],
      [
        { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }] }] },
        400, 'invalid_request_error', /messages\[0\]\.content\[0\]\.source\.type: PDF documents are not supported/,
      ],
      [
        {
          system: 'Be brief.',
          messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
        },
        400, 'invalid_request_error', /^Validation: messages\[0\]\.content\[1\]: this model accepts text only/,
      ],
      [{ messages: USER_HELLO, tools: [{ type: 'web_search_20260209', name: 'web_search' }] }, 501, 'api_error', /server tool type "web_search_20260209" is not supported/],
      [{ messages: USER_HELLO, tools: [{ name: 'f' }] }, 400, 'invalid_request_error', /tools\[0\]\.input_schema: field required/],
      [{ messages: USER_HELLO, temperature: 3.0 }, 400, 'invalid_request_error', /must be/],
      [{ messages: USER_HELLO, top_p: 2.0 }, 400, 'invalid_request_error', /must be/],
      [{ messages: USER_HELLO, frequency_penalty: 1 }, 400, 'invalid_request_error', /frequency_penalty: extra inputs are not permitted/],
    ];
    for (const [fields, status, type, message] of cases) {
      const res = await postJson(baseUrl, '/v1/messages', { model: 'scripted', max_tokens: 5, ...(fields as object) });
      assert.equal(res.status, status, JSON.stringify(fields));
      const body = (await res.json()) as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, type, JSON.stringify(fields));
      assert.match(body.error.message, message);
    }
    const count = await postJson(baseUrl, '/v1/messages/count_tokens', { model: 'scripted', messages: [{ role: 'user', content: [1] }] });
    assert.equal(count.status, 400);
    assert.match(((await count.json()) as { error: { message: string } }).error.message, /content blocks must be objects/);
    const badJson = await postJson(baseUrl, '/v1/messages', '{"model": ');
    assert.equal(badJson.status, 400);
    assert.equal(((await badJson.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
    const sub = await postJson(baseUrl, '/v1/messages/batches', {});
    assert.equal(sub.status, 404);
    assert.deepEqual(await sub.json(), { type: 'error', error: { type: 'not_found_error', message: 'Route not found: POST /v1/messages/batches' } });
  });

  test('an error during the stream is an `event: error` in the envelope, without internal details', async () => {
    const res = await postJson(baseUrl, '/v1/messages', { model: 'failing', max_tokens: 50, messages: USER_HELLO, stream: true });
    assert.equal(res.status, 200);
    const events = sseEvents(await res.text());
    const error = events[events.length - 1]!;
    assert.equal(error.event, 'error');
    assert.deepEqual(error.data, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } });
    assert.ok(!events.some((e) => e.event === 'message_stop'));
  });

  test('an overload met once the stream is open is an `event: error` of type overloaded_error', async () => {
    const res = await postJson(baseUrl, '/v1/messages', { model: 'overloaded', max_tokens: 5, messages: USER_HELLO, stream: true });
    const events = sseEvents(await res.text());
    assert.deepEqual(events[events.length - 1], { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Service temporarily overloaded' } } });
  });

  test('x-api-key and anthropic-version headers are accepted', async () => {
    const res = await postJson(baseUrl, '/v1/messages', { model: 'scripted', max_tokens: 5, messages: USER_HELLO }, { 'x-api-key': 'sk-ant-x', 'anthropic-version': '2023-06-01' });
    assert.equal(res.status, 200);
  });
});

describe('the Messages API on the mocker', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  let client: Anthropic;
  before(async () => {
    ctx = await serveInjected(['--enable-anthropic-api', '--speedup-ratio', '1000']);
    client = new Anthropic({ baseURL: ctx.baseUrl, fetch: fetchFor(ctx.baseUrl), apiKey: 'test-key', maxRetries: 0 });
  });
  after(async () => ctx.service.stop());

  test('for one seed, messages.stream finalMessage() equals messages.create', async () => {
    // `seed` is a dynamo-ts extension of the Messages body (Anthropic's has none).
    const params = { model: 'Qwen/Qwen3-0.6B', max_tokens: 24, messages: USER_HELLO, seed: 7 };
    const unary = await client.messages.create(params);
    const final = await client.messages.stream(params).finalMessage();
    assert.ok(unary.content.length === 1 && unary.content[0]!.type === 'text' && unary.content[0].text.length > 0);
    assert.deepEqual(comparable(final), comparable(unary));
    const otherParams = { ...params, seed: 8 };
    const otherSeed = await client.messages.create(otherParams);
    assert.notDeepEqual(otherSeed.content, unary.content);
  });

  test('requests are counted under the messages endpoint label, by request type', async () => {
    const metrics = await (await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/metrics`)).text();
    assert.match(metrics, /requests_total\{[^}]*endpoint="messages",request_type="unary",status="success"/);
    assert.match(metrics, /requests_total\{[^}]*endpoint="messages",request_type="stream",status="success"/);
  });
});

test('a model of another type is a 400 in the envelope that says which type it is', async () => {
  const ctx = await serveInjected(['--enable-anthropic-api', '--model-type', 'embedding']);
  try {
    const res = await postJson(ctx.baseUrl, '/v1/messages', { model: 'Qwen/Qwen3-0.6B', max_tokens: 5, messages: USER_HELLO });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /is of type Embedding and cannot serve the Anthropic Messages API \(model type Chat required\)/);
  } finally {
    await ctx.service.stop();
  }
});

test('without --enable-anthropic-api the Messages routes are absent', async () => {
  const { http, baseUrl } = await injectedHttpWithEngines({ scripted: helloWorldEngine([]) });
  try {
    const res = await postJson(baseUrl, '/v1/messages', { model: 'scripted', max_tokens: 5, messages: USER_HELLO });
    assert.equal(res.status, 404);
    assert.equal((await postJson(baseUrl, '/v1/messages/count_tokens', { model: 'scripted', messages: USER_HELLO })).status, 404);
  } finally {
    await http.shutdown();
  }
});
