import { Ajv } from 'ajv';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { HttpService } from '../../../../src/frontends/http/index.js';
import { MetricsRegistry } from '../../../../src/observability/index.js';
import type { PreprocessedRequest } from '../../../../src/protocols/index.js';
import { injectedHttpWithEngines } from '../../../support/http-with-engines.js';
import { fetchFor } from '../../../support/injected-fetch.js';
import { failingAfterHelloEngine, helloWorldEngine } from '../../../support/scripted-engines.js';
import { postJson, serveInjected } from '../../../support/in-process.js';
import { RESPONSE_EVENT_SCHEMA, RESPONSE_SCHEMA } from '../../../support/schemas/responses.js';

const prompt = (request: PreprocessedRequest | undefined): string => JSON.stringify(request?.token_ids);

describe('POST /v1/responses', () => {
  let http: HttpService;
  let baseUrl: string;
  let client: OpenAI;
  const metrics = new MetricsRegistry();
  const seen: PreprocessedRequest[] = [];
  const last = (): PreprocessedRequest => seen[seen.length - 1]!;

  before(async () => {
    ({ http, baseUrl } = await injectedHttpWithEngines({ scripted: helloWorldEngine(seen), failing: failingAfterHelloEngine() }, { metrics }));
    client = new OpenAI({ baseURL: `${baseUrl}/v1`, fetch: fetchFor(baseUrl), apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => http.shutdown());

  test('a string input gives a completed Response with the text, usage and echoed settings', async () => {
    const response = await client.responses.create({ model: 'scripted', input: 'hello', temperature: 0.5, max_output_tokens: 50 });
    assert.match(response.id, /^resp_/);
    assert.equal(response.object, 'response');
    assert.equal(response.status, 'completed');
    assert.equal(response.incomplete_details, null);
    assert.equal(response.model, 'scripted');
    assert.equal(response.output_text, 'Hello world');
    const message = response.output[0]!;
    assert.equal(message.type, 'message');
    assert.ok(message.type === 'message' && message.role === 'assistant' && message.id.startsWith('msg_'));
    assert.equal(response.usage?.output_tokens, 2);
    assert.equal(response.usage?.total_tokens, response.usage!.input_tokens + 2);
    assert.ok(response.usage!.input_tokens > 0);
    assert.equal(response.temperature, 0.5);
    assert.equal(response.max_output_tokens, 50);
    assert.equal((response as unknown as { store: boolean }).store, true);
    assert.equal(last().sampling_options.temperature, 0.5);
    assert.equal(last().stop_conditions.max_tokens, 50);
  });

  test('max_output_tokens reached gives status incomplete with the reason', async () => {
    const response = await client.responses.create({ model: 'scripted', input: 'hello', max_output_tokens: 1 });
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(response.output_text, 'Hello');
  });

  test('instructions and item input are rendered into the chat prompt', async () => {
    const viaChat = await postJson(baseUrl, '/v1/chat/completions', {
      model: 'scripted',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: 'second' },
      ],
    });
    assert.equal(viaChat.status, 200);
    const chatPrompt = prompt(last());
    const response = await client.responses.create({
      model: 'scripted',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'first' },
        { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'answer', annotations: [] }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] },
      ],
    });
    assert.equal(response.status, 'completed');
    assert.equal(prompt(last()), chatPrompt);
    assert.equal(response.instructions, 'Be brief.');
  });

  test('function_call and function_call_output items become assistant tool_calls and a tool message', async () => {
    const tool = { type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false };
    const viaChat = await postJson(baseUrl, '/v1/chat/completions', {
      model: 'scripted',
      tools: [{ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters, strict: false } }],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21C' },
      ],
    });
    assert.equal(viaChat.status, 200);
    const chatPrompt = prompt(last());
    const response = await client.responses.create({
      model: 'scripted',
      tools: [tool],
      tool_choice: 'auto',
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny, 21C' },
      ],
    });
    assert.equal(response.status, 'completed');
    assert.equal(prompt(last()), chatPrompt);
    assert.equal(response.tools.length, 1);
    assert.equal(response.tool_choice, 'auto');
  });

  test('text.format json_schema reaches the engine as guided decoding', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    await client.responses.create({ model: 'scripted', input: 'json please', text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } } });
    assert.deepEqual(last().sampling_options.guided_decoding?.json, schema);
    await client.responses.create({ model: 'scripted', input: 'json please', text: { format: { type: 'json_object' } } });
    assert.deepEqual(last().sampling_options.guided_decoding?.json, { type: 'object' });
    await client.responses.create({ model: 'scripted', input: 'plain' });
    assert.equal(last().sampling_options.guided_decoding ?? null, null);
  });

  test('reasoning is accepted and its effort reaches the chat template args', async () => {
    await postJson(baseUrl, '/v1/chat/completions', { model: 'scripted', messages: [{ role: 'user', content: 'think' }], reasoning_effort: 'none' });
    const chatPrompt = prompt(last());
    await client.responses.create({ model: 'scripted', input: 'think' });
    assert.notEqual(prompt(last()), chatPrompt, 'the template renders thinking off differently');
    const response = await client.responses.create({ model: 'scripted', input: 'think', reasoning: { effort: 'none' } });
    assert.equal(prompt(last()), chatPrompt);
    assert.equal(response.status, 'completed');
    assert.equal(response.reasoning?.effort, 'none');
  });

  test('responses.stream: the typed events in order with sequence numbers, and finalResponse() has the full text', async () => {
    const stream = client.responses.stream({ model: 'scripted', input: 'hello' });
    const types: string[] = [];
    const sequence: number[] = [];
    stream.on('event', (event) => {
      types.push(event.type);
      sequence.push(event.sequence_number);
    });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, 'Hello world');
    assert.equal(final.status, 'completed');
    assert.equal(final.usage?.output_tokens, 2);
    assert.deepEqual(types, [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    assert.deepEqual(sequence, types.map((_, i) => i));
  });

  test('the raw stream: event lines name each data type, no [DONE], nothing after completion', async () => {
    const res = await postJson(baseUrl, '/v1/responses', { model: 'scripted', input: 'hello', stream: true });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const frames = (await res.text()).split('\n\n').filter((f) => f.length > 0);
    for (const frame of frames) {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine!.slice('data: '.length)) as { type: string };
      assert.equal(eventLine, `event: ${data.type}`);
    }
    assert.ok(frames[frames.length - 1]!.startsWith('event: response.completed\n'));
    assert.ok(!frames.some((f) => f.includes('[DONE]')));
  });

  test('a stream that stops at max_output_tokens ends with response.incomplete', async () => {
    const stream = client.responses.stream({ model: 'scripted', input: 'hello', max_output_tokens: 1 });
    const final = await stream.finalResponse();
    assert.equal(final.status, 'incomplete');
    assert.deepEqual(final.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(final.output_text, 'Hello');
  });

  test('an error mid-stream ends the stream with response.failed and no internal details', async () => {
    const res = await postJson(baseUrl, '/v1/responses', { model: 'failing', input: 'hello', stream: true });
    const text = await res.text();
    const frames = text.split('\n\n').filter((f) => f.length > 0);
    const lastFrame = frames[frames.length - 1]!;
    assert.ok(lastFrame.startsWith('event: response.failed\n'), lastFrame);
    const failed = JSON.parse(lastFrame.split('\n')[1]!.slice('data: '.length)) as { response: { status: string; error: unknown } };
    assert.equal(failed.response.status, 'failed');
    assert.deepEqual(failed.response.error, { code: 'server_error', message: 'Internal server error' });
    // The failed Response and every event before it, against the schemas written from the reference.
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validResponse = ajv.compile(RESPONSE_SCHEMA);
    const validEvent = ajv.compile(RESPONSE_EVENT_SCHEMA);
    assert.ok(validResponse(failed.response), ajv.errorsText(validResponse.errors));
    frames.forEach((frame, i) => {
      const event = JSON.parse(frame.slice(frame.indexOf('data: ') + 'data: '.length)) as Record<string, unknown>;
      assert.ok(validEvent(event), `event ${i} ${String(event.type)}: ${ajv.errorsText(validEvent.errors)}`);
      assert.equal(event.sequence_number, i);
    });
    assert.ok(!text.includes('/srv/secret'));
    assert.ok(!text.includes('[DONE]'));
  });

  test('400s name the field; an unknown model is 404; stateful features not built are refused', async () => {
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ input: 'x' }, 400, /`model`/],
      [{ model: 'scripted' }, 400, /`input` is required/],
      [{ model: 'scripted', input: [] }, 400, /`input` cannot be empty.*messages/],
      [{ model: 'scripted', input: 'x', max_output_tokens: 0 }, 400, /`max_output_tokens` must be greater than 0/],
      [{ model: 'scripted', input: 'x', moderation: { model: 'omni-moderation-latest' } }, 400, /`moderation` is not supported: this gateway runs no moderation model/],
      [{ model: 'scripted', input: 'x', temperature: 3 }, 400, /Temperature must be between 0 and 2/],
      [{ model: 'scripted', input: 'x', top_p: 0 }, 400, /Top_p must be between 0 and 1/],
      [{ model: 'scripted', input: 'x', text: { format: { type: 'json_schema', name: 'n', schema: [] } } }, 400, /`text.format.schema` must be a JSON object/],
      [{ model: 'scripted', input: 'x', tools: [], tool_choice: 'required' }, 400, /tool_choice is "required"/],
      // Hosted tools (web_search, ...) are accepted and not offered (agent-requests.test.ts); an unknown type is not.
      [{ model: 'scripted', input: 'x', tools: [{ type: 'spreadsheet' }] }, 400, /`tools\[0\].type`/],
      [{ model: 'scripted', input: 'x', tools: [{ type: 'function', name: 'f' }, { type: 'function' }] }, 400, /`tools\[1\].name` is required/],
      [{ model: 'scripted', input: 'x', tools: [{ type: 'function', name: 'f', parameters: 'x' }] }, 400, /`tools\[0\].parameters` must be a JSON schema object/],
      [{ model: 'scripted', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 400, /`input\[0\].call_id`/],
      [{ model: 'scripted', input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 400, /requires file_id or image_url/],
      [{ model: 'scripted', input: [{ type: 'hologram' }] }, 400, /`input\[0\].type`/],
      [{ model: 'scripted', input: 'x', bogus: 1 }, 400, /Unsupported parameter\(s\): `bogus`/],
      [{ model: 'scripted', input: 'x', store: 'yes' }, 400, /`store` must be a boolean/],
      [{ model: 'scripted', input: 'x', previous_response_id: 'resp_1' }, 404, /Previous response with id 'resp_1' not found/],
      [{ model: 'scripted', input: 'x', conversation: 'conv_1' }, 501, /`conversation` is not supported/],
      [{ model: 'scripted', input: 'x', background: true }, 501, /`background: true` is not supported/],
      [{ model: 'nope', input: 'x' }, 404, /Model not found/],
      [{ model: 'nope', input: 'x', stream: true, temperature: 9 }, 404, /Model not found/],
    ];
    for (const [body, status, message] of cases) {
      const res = await postJson(baseUrl, '/v1/responses', body);
      const json = (await res.json()) as { message: string; code: number };
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${json.message}`);
      assert.match(json.message, message, JSON.stringify(body));
      assert.equal(json.code, status);
    }
  });

  test('validation errors of a stream come before the stream starts, as a plain 400', async () => {
    await assert.rejects(
      client.responses.create({ model: 'scripted', input: 'x', stream: true, max_output_tokens: -1 }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && /max_output_tokens/.test(err.message),
    );
  });

  test('GET on the route is 405; requests are counted under endpoint "responses"', async () => {
    const res = await fetchFor(baseUrl)(`${baseUrl}/v1/responses`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    const rendered = await metrics.render();
    assert.match(rendered, /requests_total\{model="scripted",endpoint="responses",request_type="stream",status="success"/);
    assert.match(rendered, /requests_total\{model="scripted",endpoint="responses",request_type="unary",status="success"/);
  });
});

describe('the Responses route in serve', () => {
  test('DYN_HTTP_SVC_RESPONSES_PATH moves the route; the mocker answers through it', async () => {
    const ctx = await serveInjected(['--speedup-ratio', '1000'], { DYN_HTTP_SVC_RESPONSES_PATH: '/custom/responses' });
    try {
      const moved = new OpenAI({ baseURL: `${ctx.baseUrl}/custom`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused', maxRetries: 0 });
      const response = await moved.responses.create({ model: 'Qwen/Qwen3-0.6B', input: 'hello', max_output_tokens: 3 });
      assert.equal(response.usage?.output_tokens, 3);
      assert.ok(response.output_text.length > 0);
      assert.equal((await postJson(ctx.baseUrl, '/v1/responses', { model: 'Qwen/Qwen3-0.6B', input: 'x' })).status, 404);
    } finally {
      await ctx.service.stop();
    }
  });
});
