import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startServe } from '../support/processes.js';

const MODEL = 'Qwen/Qwen3-0.6B';

describe('dynamo-ts serve through the openai client', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: OpenAI;

  before(async () => {
    server = await startServe(['--speedup-ratio', '1000']);
    client = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });

  after(async () => {
    const code = await server.proc.stop();
    assert.equal(code, 0, `serve should exit cleanly on SIGTERM:\n${server.proc.output()}`);
  });

  test('models list shows the default model', async () => {
    const page = await client.models.list();
    assert.deepEqual(
      page.data.map((m) => m.id),
      [MODEL],
    );
    assert.equal(page.data[0]!.owned_by, 'nvidia');
  });

  test('unary chat: max_tokens ends with length and usage adds up', async () => {
    const res = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Tell me about Mars' }],
      max_tokens: 7,
      ignore_eos: true,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    assert.equal(res.object, 'chat.completion');
    assert.match(res.id, /^chatcmpl-/);
    assert.equal(res.model, MODEL);
    assert.equal(res.choices.length, 1);
    assert.equal(res.choices[0]!.finish_reason, 'length');
    assert.equal(res.choices[0]!.message.role, 'assistant');
    assert.ok((res.choices[0]!.message.content ?? '').length > 0);
    assert.equal(res.usage!.completion_tokens, 7);
    assert.ok(res.usage!.prompt_tokens > 5);
    assert.equal(res.usage!.total_tokens, res.usage!.prompt_tokens + 7);
  });

  test('streaming chat: role first, text matches the unary answer, usage chunk last', async () => {
    const params = {
      model: MODEL,
      messages: [{ role: 'user' as const, content: 'Write a haiku' }],
      max_tokens: 12,
      seed: 42,
      ignore_eos: true,
    };
    const unary = await client.chat.completions.create(params as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const stream = await client.chat.completions.create({
      ...params,
      stream: true,
      stream_options: { include_usage: true },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const contentChunks = chunks.filter((c) => c.choices.length > 0);
    assert.equal(contentChunks[0]!.choices[0]!.delta.role, 'assistant');
    assert.ok(contentChunks.slice(1).every((c) => c.choices[0]!.delta.role === undefined));
    const text = contentChunks.map((c) => c.choices[0]!.delta.content ?? '').join('');
    assert.equal(text, unary.choices[0]!.message.content);
    assert.equal(contentChunks.at(-1)!.choices[0]!.finish_reason, 'length');
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage!.completion_tokens, 12);
    assert.ok(new Set(chunks.map((c) => c.id)).size === 1);
  });

  test('stop string: output ends just before the stop, finish_reason stop', async () => {
    // No ignore_eos here: upstream clears stop strings when it is set.
    const base = { model: MODEL, prompt: 'Once upon a time', max_tokens: 40, seed: 7 };
    const full = await client.completions.create(base as OpenAI.CompletionCreateParamsNonStreaming);
    const text = full.choices[0]!.text;
    assert.ok(text.length > 20, `mocker output too short: ${JSON.stringify(text)}`);
    const stop = text.slice(10, 14);
    const expected = text.slice(0, text.indexOf(stop));
    const stopped = await client.completions.create({ ...base, stop: [stop] } as OpenAI.CompletionCreateParamsNonStreaming);
    assert.equal(stopped.choices[0]!.text, expected);
    assert.equal(stopped.choices[0]!.finish_reason, 'stop');

    const stream = await client.completions.create({ ...base, stop: [stop], stream: true } as OpenAI.CompletionCreateParamsStreaming);
    let streamed = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(streamed, expected);
    assert.equal(finish, 'stop');
  });

  test('n=2 returns two different choices', async () => {
    const res = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Pick a number' }],
      max_tokens: 8,
      n: 2,
      ignore_eos: true,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    assert.deepEqual(
      res.choices.map((c) => c.index),
      [0, 1],
    );
    assert.notEqual(res.choices[0]!.message.content, res.choices[1]!.message.content);
    assert.equal(res.usage!.completion_tokens, 16);
  });

  test('batch completions prompt: one choice per prompt', async () => {
    const res = await client.completions.create({
      model: MODEL,
      prompt: ['one', 'two', 'three'],
      max_tokens: 3,
    });
    assert.equal(res.choices.length, 3);
    assert.deepEqual(
      res.choices.map((c) => c.index),
      [0, 1, 2],
    );
  });

  test('errors surface as the SDK typed errors', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
      (err: unknown) => err instanceof OpenAI.NotFoundError && err.status === 404,
    );
    await assert.rejects(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], temperature: 3 }),
      (err: unknown) =>
        err instanceof OpenAI.BadRequestError && /Temperature must be between 0 and 2, got 3/.test(err.message),
    );
    await assert.rejects(
      client.completions.create({ model: MODEL, prompt: [] as string[] }),
      (err: unknown) => err instanceof OpenAI.BadRequestError,
    );
    await assert.rejects(
      client.chat.completions.create({ model: MODEL, messages: [] }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && /messages/.test(err.message),
    );
  });
});
