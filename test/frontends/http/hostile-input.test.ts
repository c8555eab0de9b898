// Hostile bodies through the real routes: nesting of any depth is a 400 naming the field, size
// limits are 400s naming the limit before templating, and the next valid request is answered.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson, serveInjected } from '../../support/in-process.js';
import { fetchFor } from '../../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const chatPrefix = `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"max_tokens":2`;

/** Raw bodies: JSON.stringify itself cannot build 100k levels, so the text is written by hand. */
const NESTED_FIELDS: Record<string, (deep: string) => string> = {
  logit_bias: (deep) => `${chatPrefix},"logit_bias":{"5":${deep}}}`,
  response_format: (deep) => `${chatPrefix},"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":${deep}}}}`,
  tools: (deep) => `${chatPrefix},"tools":[{"type":"function","function":{"name":"f","parameters":${deep}}}]}`,
  nvext: (deep) => `${chatPrefix},"nvext":${deep}}`,
  chat_template_args: (deep) => `${chatPrefix},"chat_template_args":${deep}}`,
  metadata: (deep) => `${chatPrefix},"metadata":${deep}}`,
  messages: (deep) => `{"model":"${MODEL}","messages":[{"role":"user","content":${deep}}]}`,
};

describe('hostile input on the HTTP routes', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  let client: OpenAI;

  before(async () => {
    ctx = await serveInjected(['--speedup-ratio', '1000', '--enable-anthropic-api', '--max-request-messages', '50', '--max-request-tools', '4', '--max-prompt-chars', '5000']);
    client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => ctx.service.stop());

  async function expect400(body: string, path = '/v1/chat/completions'): Promise<string> {
    const res = await postJson(ctx.baseUrl, path, body);
    const text = await res.text();
    assert.equal(res.status, 400, text.slice(0, 300));
    return (JSON.parse(text) as { message?: string; error: { message: string } }).error.message;
  }

  for (const [field, build] of Object.entries(NESTED_FIELDS)) {
    test(`${field} nested 10k and 100k deep is a 400 naming ${field} and the limit`, async () => {
      for (const depth of [10_000, 100_000]) {
        for (const deep of [deepArray(depth), deepObject(depth)]) {
          const message = await expect400(build(deep));
          assert.ok(message.includes(field), message);
          assert.match(message, /nested deeper than 128 levels/);
        }
      }
    });
  }

  test('nesting just under the limit is judged by the field rules, never a 500', async () => {
    for (const build of Object.values(NESTED_FIELDS)) {
      const res = await postJson(ctx.baseUrl, '/v1/chat/completions', build(deepObject(120)));
      assert.ok(res.status === 200 || res.status === 400, `${res.status}: ${(await res.text()).slice(0, 200)}`);
    }
  });

  test('the other routes refuse deep bodies the same way', async () => {
    const deep = deepObject(10_000);
    assert.match(await expect400(`{"model":"${MODEL}","prompt":"hi","logit_bias":${deep}}`, '/v1/completions'), /logit_bias.*nested deeper/);
    assert.match(await expect400(`{"model":"${MODEL}","input":"hi","metadata":${deep}}`, '/v1/responses'), /metadata.*nested deeper/);
    assert.match(await expect400(`{"model":"${MODEL}","input":${deepArray(10_000)}}`, '/v1/embeddings'), /input.*nested deeper/);
  });

  test('the OpenAI client hears the depth limit as a BadRequestError', async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 1000; i++) schema = { type: 'object', properties: { a: schema } };
    await assert.rejects(
      client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: schema } }],
      }),
      (err: InstanceType<typeof OpenAI.APIError>) => err.status === 400 && /tools\[0\]\.function\.parameters….*128 levels/.test(err.message),
    );
  });

  test('the Anthropic client hears it in its own error shape', async () => {
    const anthropic = new Anthropic({ baseURL: ctx.baseUrl, fetch: fetchFor(ctx.baseUrl), apiKey: 'k', maxRetries: 0 });
    let input: Record<string, unknown> = {};
    for (let i = 0; i < 500; i++) input = { a: input };
    await assert.rejects(
      anthropic.messages.create({ model: MODEL, max_tokens: 4, messages: [{ role: 'user', content: 'hi' }], metadata: input as never }),
      (err: InstanceType<typeof Anthropic.APIError>) =>
        err.status === 400 && (err.error as { error: { type: string } }).error.type === 'invalid_request_error' && /metadata.*128 levels/.test(err.message),
    );
  });

  test('too many messages: 400 naming the limit and the count', async () => {
    const messages = Array.from({ length: 51 }, () => ({ role: 'user' as const, content: 'hi' }));
    await assert.rejects(
      client.chat.completions.create({ model: MODEL, messages, max_tokens: 2 }),
      (err: InstanceType<typeof OpenAI.APIError>) =>
        err.status === 400 && err.message.includes('Request has 51 messages, more than the limit of 50 (--max-request-messages)'),
    );
    const ok = await client.chat.completions.create({ model: MODEL, messages: messages.slice(1), max_tokens: 2 });
    assert.equal(ok.choices.length, 1);
  });

  test('too many tools: 400 naming the limit', async () => {
    const tools = Array.from({ length: 5 }, (_, i) => ({ type: 'function' as const, function: { name: `f${i}`, parameters: { type: 'object' } } }));
    await assert.rejects(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], tools }),
      (err: InstanceType<typeof OpenAI.APIError>) => err.status === 400 && err.message.includes('Maximum of 4 tools are supported, got 5'),
    );
  });

  test('too much prompt text on chat, completions and Responses: 400 naming the limit', async () => {
    const long = 'x'.repeat(5001);
    const limit = /Prompt has 5001 characters, more than the limit of 5000 \(--max-prompt-chars\)/;
    const is400 = (err: InstanceType<typeof OpenAI.APIError>) => err.status === 400 && limit.test(err.message);
    await assert.rejects(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: long }] }), is400);
    await assert.rejects(client.completions.create({ model: MODEL, prompt: [long.slice(1), 'y'] }), is400);
    await assert.rejects(client.responses.create({ model: MODEL, input: long }), is400);
  });

  test('a valid request right after all of this is answered', async () => {
    const ok = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    assert.equal(ok.choices[0]!.finish_reason, 'length');
  });
});
