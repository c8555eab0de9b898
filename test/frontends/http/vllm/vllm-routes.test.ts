import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postJson, serveInjected } from '../../../support/in-process.js';
import { fetchFor } from '../../../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const MESSAGES = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is the capital of France?' },
];

type Tokenized = { count: number; max_model_len: number; tokens: number[]; token_strs: string[] | null };
type Generated = { request_id: string; choices: { index: number; token_ids: number[]; finish_reason?: string; logprobs?: { content: { token: string; logprob: number }[] } }[] };

async function okJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as T;
}

async function errorOf(res: Response): Promise<{ status: number; message: string }> {
  const body = (await res.json()) as { message: string };
  return { status: res.status, message: body.message };
}

/** The `data:` payloads of an SSE answer. */
function dataLines(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice('data: '.length));
}

describe('vLLM routes: /tokenize, /detokenize, /inference/v1/generate', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  before(async () => {
    ctx = await serveInjected(['--speedup-ratio', '1000']);
  });
  after(async () => ctx.service.stop());

  test('a prompt tokenized then detokenized gives the text back; token strings on request', async () => {
    const text = 'Hello, world! Tokenizers split this.';
    const tok = await okJson<Tokenized>(await postJson(ctx.baseUrl, '/tokenize', { model: MODEL, prompt: text }));
    assert.equal(tok.count, tok.tokens.length);
    assert.ok(tok.count > 3);
    assert.ok(tok.max_model_len > 0);
    assert.equal(tok.token_strs, null);
    const back = await okJson<{ prompt: string }>(await postJson(ctx.baseUrl, '/detokenize', { model: MODEL, tokens: tok.tokens }));
    assert.equal(back.prompt, text);

    const withStrs = await okJson<Tokenized>(await postJson(ctx.baseUrl, '/tokenize', { model: MODEL, prompt: 'Hello world', return_token_strs: true }));
    assert.deepEqual(withStrs.tokens, withStrs.tokens.filter(Number.isInteger));
    assert.deepEqual(withStrs.token_strs, ['Hello', 'Ġworld']);
  });

  test("a chat's count is the prompt_tokens of its chat completion; the generation prompt and special tokens follow the flags", async () => {
    const tok = await okJson<Tokenized>(await postJson(ctx.baseUrl, '/tokenize', { model: MODEL, messages: MESSAGES }));
    const chat = await okJson<{ usage: { prompt_tokens: number } }>(
      await postJson(ctx.baseUrl, '/v1/chat/completions', { model: MODEL, messages: MESSAGES, max_tokens: 2 }),
    );
    assert.equal(tok.count, chat.usage.prompt_tokens);
    const rendered = await okJson<{ prompt: string }>(await postJson(ctx.baseUrl, '/detokenize', { model: MODEL, tokens: tok.tokens }));
    assert.match(rendered.prompt, /<\|im_start\|>user\nWhat is the capital of France\?<\|im_end\|>\n<\|im_start\|>assistant\n$/);

    const noPrompt = await okJson<Tokenized>(await postJson(ctx.baseUrl, '/tokenize', { model: MODEL, messages: MESSAGES, add_generation_prompt: false }));
    assert.ok(noPrompt.count < tok.count);
    const withTools = await okJson<Tokenized>(
      await postJson(ctx.baseUrl, '/tokenize', {
        model: MODEL,
        messages: MESSAGES,
        tools: [{ type: 'function', function: { name: 'lookup', description: 'Look a city up', parameters: { type: 'object', properties: {} } } }],
      }),
    );
    assert.ok(withTools.count > tok.count, 'the template renders the tools');
  });

  test('token-in, token-out generation, unary: ids per choice, a finish reason, logprobs when asked', async () => {
    const prompt = await okJson<Tokenized>(await postJson(ctx.baseUrl, '/tokenize', { model: MODEL, prompt: 'Once upon a time' }));
    const res = await postJson(
      ctx.baseUrl,
      '/inference/v1/generate',
      { model: MODEL, token_ids: prompt.tokens, request_id: 'body-id', sampling_params: { max_tokens: 4, ignore_eos: true, n: 2, logprobs: 1 } },
    );
    const out = await okJson<Generated>(res);
    assert.equal(out.request_id, 'body-id');
    assert.deepEqual(out.choices.map((c) => c.index), [0, 1]);
    for (const choice of out.choices) {
      assert.equal(choice.token_ids.length, 4);
      assert.equal(choice.finish_reason, 'length');
      assert.equal(choice.logprobs?.content.length, 4);
    }
    const headerWins = await okJson<Generated>(
      await postJson(ctx.baseUrl, '/inference/v1/generate', { model: MODEL, token_ids: [1, 2, 3], request_id: 'body-id', sampling_params: { max_tokens: 1 } }, { 'x-request-id': 'header-id' }),
    );
    assert.equal(headerWins.request_id, 'header-id');
    // A client that writes out every field of the request sends nulls for what it leaves unused.
    const spelledOut = await okJson<Generated>(
      await postJson(ctx.baseUrl, '/inference/v1/generate', {
        model: MODEL, token_ids: [1, 2, 3], features: null, kv_transfer_params: null, priority: 0, cache_salt: null,
        sampling_params: { max_tokens: 2, ignore_eos: true, structured_outputs: null, logprobs: null },
      }),
    );
    assert.equal(spelledOut.choices[0]!.token_ids.length, 2);
    assert.equal(headerWins.choices[0]!.logprobs, undefined);
  });

  test('token-in, token-out generation, streamed: the chunks add up to the ids, usage last when asked', async () => {
    const res = await postJson(ctx.baseUrl, '/inference/v1/generate', {
      model: MODEL,
      token_ids: [9707, 11, 1879],
      stream: true,
      stream_options: { include_usage: true },
      sampling_params: { max_tokens: 5, ignore_eos: true },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const chunks = dataLines(await res.text()).map((d) => JSON.parse(d) as Generated & { usage?: { prompt_tokens: number; completion_tokens: number } });
    const ids = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.token_ids));
    assert.equal(ids.length, 5);
    assert.equal(chunks.filter((c) => c.choices.some((ch) => ch.finish_reason === 'length')).length, 1);
    const last = chunks[chunks.length - 1]!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.prompt_tokens, 3);
    assert.equal(last.usage?.completion_tokens, 5);
  });

  test('400s name the field; an unknown model is a 404', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['/tokenize', { prompt: 'x' }, /`model`/],
      ['/tokenize', { model: MODEL }, /`prompt`.*`messages`/],
      ['/tokenize', { model: MODEL, prompt: 'x', messages: MESSAGES }, /`prompt` and `messages`/],
      ['/tokenize', { model: MODEL, prompt: 'x', add_special_tokens: 'yes' }, /`add_special_tokens`/],
      ['/tokenize', { model: MODEL, messages: 'hi' }, /messages/],
      ['/detokenize', { model: MODEL }, /`tokens`/],
      ['/detokenize', { model: MODEL, tokens: [1, -2] }, /`tokens\[1\]`/],
      ['/detokenize', { model: MODEL, tokens: [1, 99_999_999] }, /`tokens\[1\]`.*vocabulary/],
      ['/inference/v1/generate', { model: MODEL, token_ids: [], sampling_params: {} }, /`token_ids`/],
      ['/inference/v1/generate', { model: MODEL, token_ids: [1] }, /`sampling_params` is required/],
      ['/inference/v1/generate', { model: MODEL, token_ids: [1], sampling_params: { max_tokens: 0 } }, /`sampling_params.max_tokens`/],
      ['/inference/v1/generate', { model: MODEL, token_ids: [1], sampling_params: { structured_outputs: {} } }, /`sampling_params.structured_outputs`/],
      ['/inference/v1/generate', { model: MODEL, token_ids: [1], sampling_params: {}, stream_options: { include_usage: true } }, /`stream_options`/],
      ['/inference/v1/generate', { model: MODEL, token_ids: [1], sampling_params: {}, features: {} }, /`features`/],
    ];
    for (const [path, body, message] of cases) {
      const { status, message: got } = await errorOf(await postJson(ctx.baseUrl, path, body));
      assert.equal(status, 400, `${path} ${JSON.stringify(body)}: ${got}`);
      assert.match(got, message, `${path} ${JSON.stringify(body)}`);
    }
    for (const [path, body] of [
      ['/tokenize', { model: 'no-such-model', prompt: 'x' }],
      ['/detokenize', { model: 'no-such-model', tokens: [1] }],
      ['/inference/v1/generate', { model: 'no-such-model', token_ids: [1], sampling_params: {} }],
    ] as const) {
      assert.equal((await postJson(ctx.baseUrl, path, body)).status, 404, path);
    }
  });

  test('each route counts in the request metrics under its own endpoint label', async () => {
    await (await postJson(ctx.baseUrl, '/tokenize', { model: MODEL, prompt: 'count me' })).text();
    const text = await (await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/metrics`)).text();
    for (const endpoint of ['tokenize', 'detokenize', 'inference_generate']) {
      assert.match(text, new RegExp(`dynamo_frontend_requests_total\\{[^}]*endpoint="${endpoint}"[^}]*status="success"`), endpoint);
    }
  });
});

describe('vLLM routes behind an API key and at configured paths', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  before(async () => {
    ctx = await serveInjected(['--api-key', 'sekret'], {
      DYN_HTTP_SVC_TOKENIZE_PATH: '/v1/tokenize',
      DYN_HTTP_SVC_DETOKENIZE_PATH: '/v1/detokenize',
      DYN_HTTP_SVC_INFERENCE_GENERATE_PATH: '/v1/generate-tokens',
    });
  });
  after(async () => ctx.service.stop());

  test('the routes answer at their configured paths, with the key only', async () => {
    const auth = { authorization: 'Bearer sekret' };
    assert.equal((await postJson(ctx.baseUrl, '/v1/tokenize', { model: MODEL, prompt: 'x' })).status, 401);
    assert.equal((await postJson(ctx.baseUrl, '/v1/tokenize', { model: MODEL, prompt: 'x' }, auth)).status, 200);
    assert.equal((await postJson(ctx.baseUrl, '/v1/detokenize', { model: MODEL, tokens: [9707] }, auth)).status, 200);
    assert.equal((await postJson(ctx.baseUrl, '/v1/generate-tokens', { model: MODEL, token_ids: [1], sampling_params: { max_tokens: 1 } }, auth)).status, 200);
    assert.equal((await postJson(ctx.baseUrl, '/tokenize', { model: MODEL, prompt: 'x' }, auth)).status, 404);
  });
});
