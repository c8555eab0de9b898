// Every kind of Responses answer, checked against the Response object and event schemas written
// from OpenAI's reference (test/support/schemas/responses.ts): unary, streamed (every event, in
// sequence), with reasoning, with tool calls (function, namespaced, custom), multi-turn, an image
// for a text-only model, and cut short.
import { Ajv } from 'ajv';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postJson, serveInjected } from '../../../support/in-process.js';
import { RESPONSE_EVENT_SCHEMA, RESPONSE_SCHEMA } from '../../../support/schemas/responses.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const ajv = new Ajv({ allErrors: true, strict: false });
const validResponse = ajv.compile(RESPONSE_SCHEMA);
const validEvent = ajv.compile(RESPONSE_EVENT_SCHEMA);
const hermes = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

function assertResponse(body: unknown, label: string): void {
  assert.ok(validResponse(body), `${label}: ${ajv.errorsText(validResponse.errors)}\n${JSON.stringify(body).slice(0, 600)}`);
}

function sseEvents(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 'data: '.length)) as Record<string, unknown>);
}

describe('Responses answers against the reference schema', () => {
  let server: Awaited<ReturnType<typeof serveInjected>>;
  before(async () => {
    server = await serveInjected(['--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3', '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000']);
  });
  after(() => server.service.stop());

  const CASES: [string, Record<string, unknown>][] = [
    ['plain text', { input: 'Hello there.' }],
    ['reasoning then an answer', { input: '<think>Weighing.</think>The answer.', reasoning: { effort: 'low' } }],
    ['every setting given', { input: 'Hi.', instructions: 'Be brief.', temperature: 0.5, top_p: 0.9, max_output_tokens: 64, metadata: { k: 'v' }, user: 'u1', prompt_cache_key: 'p', safety_identifier: 's', service_tier: 'auto', presence_penalty: 0.1, frequency_penalty: 0.2 }],
    ['a function call', { input: hermes('get_weather', { city: 'Paris' }), tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] }],
    [
      'namespaced and custom tools beside a hosted one',
      {
        input: hermes('apply_patch', { input: '*** Begin Patch' }),
        tools: [{ type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'function', name: 'f' }] }, { type: 'custom', name: 'apply_patch' }, { type: 'web_search' }],
      },
    ],
    [
      'a second turn after a tool result',
      {
        input: [
          { role: 'user', content: 'Weather?' },
          { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'c1', output: '18C' },
          { role: 'user', content: 'Thanks, summarise.' },
        ],
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: true }],
      },
    ],
    ['cut short by max_output_tokens', { input: 'A longer reply than two tokens.', max_output_tokens: 2 }],
  ];

  for (const [what, extra] of CASES) {
    test(`${what}: the unary Response and every streamed event match`, async () => {
      const unary = await postJson(server.baseUrl, '/v1/responses', { model: MODEL, ...extra });
      assert.equal(unary.status, 200);
      assertResponse(await unary.json(), 'unary');
      const streamed = await postJson(server.baseUrl, '/v1/responses', { model: MODEL, ...extra, stream: true });
      const events = sseEvents(await streamed.text());
      events.forEach((event, i) => {
        assert.ok(validEvent(event), `event ${i} ${String(event.type)}: ${ajv.errorsText(validEvent.errors)}`);
        assert.equal(event.sequence_number, i, 'sequence numbers count every event from 0');
      });
      const last = events[events.length - 1]!;
      assert.match(String(last.type), /^response\.(completed|incomplete)$/);
    });
  }

  test('completed_at is set for a completed response and null for one cut short', async () => {
    const done = (await (await postJson(server.baseUrl, '/v1/responses', { model: MODEL, input: 'Hi.' })).json()) as { completed_at: number | null; created_at: number };
    assert.ok(done.completed_at !== null && done.completed_at >= done.created_at);
    const cut = (await (await postJson(server.baseUrl, '/v1/responses', { model: MODEL, input: 'Many words here.', max_output_tokens: 1 })).json()) as { completed_at: number | null };
    assert.equal(cut.completed_at, null);
  });

  test('an image for a text-only model is a 400 naming the part as the client sent it (input[i], not chat\'s messages[j])', async () => {
    const res = await postJson(server.baseUrl, '/v1/responses', {
      model: MODEL,
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'Hello.' },
        { role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' }] },
      ],
    });
    const body = (await res.json()) as { message: string };
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(body.message, /^Validation: input\[1\]\.content\[1\]: this model accepts text only/);
  });
});
