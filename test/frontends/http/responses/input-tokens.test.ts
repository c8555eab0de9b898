// POST /v1/responses/input_tokens through the openai SDK: the count is the prompt the model's
// template and tokenizer make of the same request, tools and instructions included.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { serveInjected } from '../../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
let server: Awaited<ReturnType<typeof serveInjected>>;
let openai: OpenAI;

before(async () => {
  server = await serveInjected(['--speedup-ratio', '1000']);
  openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0, fetch: server.fetch });
});
after(() => server.service.stop());

test('the count equals the prompt tokens a response to the same request reports', async () => {
  const request = {
    model: MODEL,
    instructions: 'Answer briefly.',
    input: [{ role: 'user' as const, content: 'What is the capital of France?' }],
    tools: [{ type: 'function' as const, name: 'lookup', description: 'Look a fact up.', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }],
  };
  const counted = await openai.responses.inputTokens.count(request);
  assert.equal(counted.object, 'response.input_tokens');
  const response = await openai.responses.create({ ...request, max_output_tokens: 2 });
  assert.equal(counted.input_tokens, response.usage!.input_tokens);
  const bare = await openai.responses.inputTokens.count({ model: MODEL, input: 'What is the capital of France?' });
  assert.ok(bare.input_tokens < counted.input_tokens, 'tools and instructions are counted');
});

test('a bad request is a 400 naming the field, an unknown model a 404', async () => {
  await assert.rejects(openai.responses.inputTokens.count({ model: MODEL, input: 'x', bogus: 1 } as never), (err: unknown) => err instanceof OpenAI.BadRequestError && /`bogus`/.test(err.message));
  await assert.rejects(openai.responses.inputTokens.count({ model: 'nope', input: 'x' }), (err: unknown) => err instanceof OpenAI.NotFoundError);
});
