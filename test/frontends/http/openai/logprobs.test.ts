// logprobs and completions echo through the official openai client, against `serve` in-process:
// chat's `logprobs.content[]` and the completions arrays, streaming and unary, and the 400s.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { serveInjected } from '../../../support/in-process.js';
import { fetchFor } from '../../../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const MESSAGES: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Tell me about logprobs' }];
/** Fixed length (no EOS) and a fixed seed: the mocker's output, logprobs included, repeats. */
const FIXED = { max_tokens: 12, seed: 3, ignore_eos: true } as Record<string, unknown>;

type ChatParams = OpenAI.ChatCompletionCreateParamsNonStreaming;
type CompletionParams = OpenAI.CompletionCreateParamsNonStreaming;

/** The bytes of every entry, joined, are the text (a split character's tokens carry its bytes). */
function textOfBytes(entries: { bytes: number[] | null }[]): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(entries.flatMap((e) => e.bytes ?? [])));
}

describe('logprobs and echo through the openai client', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  let client: OpenAI;

  before(async () => {
    ctx = await serveInjected(['--speedup-ratio', '1000']);
    client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => ctx.service.stop());

  test('unary chat: one entry per token with its bytes and top_logprobs alternatives', async () => {
    const res = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, logprobs: true, top_logprobs: 3, ...FIXED } as ChatParams);
    const choice = res.choices[0]!;
    const content = choice.logprobs!.content!;
    assert.equal(content.length, res.usage!.completion_tokens);
    assert.equal(textOfBytes(content), choice.message.content);
    for (const entry of content) {
      assert.ok(entry.logprob < 0);
      assert.equal(entry.top_logprobs.length, 3);
      // The sampled token ranks first (its text may differ for half a character: the engine decodes it alone).
      assert.equal(entry.top_logprobs[0]!.logprob, entry.logprob);
      assert.deepEqual(entry.top_logprobs[0]!.bytes, entry.bytes);
    }
    assert.equal(choice.logprobs!.refusal, null);
  });

  test('streaming chat: the chunks carry the same entries as the unary answer', async () => {
    const params = { model: MODEL, messages: MESSAGES, logprobs: true, top_logprobs: 2, ...FIXED };
    const unary = await client.chat.completions.create(params as ChatParams);
    const stream = await client.chat.completions.create({ ...params, stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    const entries: OpenAI.ChatCompletionTokenLogprob[] = [];
    let text = '';
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      text += choice.delta.content ?? '';
      entries.push(...(choice.logprobs?.content ?? []));
    }
    assert.equal(text, unary.choices[0]!.message.content);
    assert.deepEqual(entries, unary.choices[0]!.logprobs!.content);
  });

  test('chat without logprobs answers null; top_logprobs 0 gives the sampled logprob alone', async () => {
    const plain = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, ...FIXED } as ChatParams);
    assert.equal(plain.choices[0]!.logprobs, null);
    const zero = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, logprobs: true, top_logprobs: 0, ...FIXED } as ChatParams);
    const content = zero.choices[0]!.logprobs!.content!;
    assert.equal(content.length, 12);
    assert.ok(content.every((e) => e.top_logprobs.length === 0 && Number.isFinite(e.logprob)));
    // Asking for logprobs does not change the text.
    assert.equal(zero.choices[0]!.message.content, plain.choices[0]!.message.content);
  });

  test('unary completions: echo puts the prompt first; tokens, token_logprobs, top_logprobs and text_offset line up', async () => {
    const prompt = 'The capital of France is';
    const res = await client.completions.create({ model: MODEL, prompt, echo: true, logprobs: 2, ...FIXED } as CompletionParams);
    const choice = res.choices[0]!;
    assert.ok(choice.text.startsWith(prompt), choice.text);
    const lp = choice.logprobs!;
    assert.equal(lp.tokens!.length, 12);
    assert.equal(lp.token_logprobs!.length, 12);
    assert.equal(lp.top_logprobs!.length, 12);
    assert.equal(lp.tokens!.join(''), choice.text.slice(prompt.length));
    // Generated tokens only (the engine reports no prompt logprobs here): offsets start after the prompt.
    let offset = prompt.length;
    lp.tokens!.forEach((token, i) => {
      assert.equal(lp.text_offset![i], offset);
      offset += [...token].length;
      const top = lp.top_logprobs![i]!;
      assert.ok(Object.keys(top).length >= 1 && Object.keys(top).length <= 2);
      assert.ok(Object.values(top).includes(lp.token_logprobs![i]!));
    });
  });

  test('streaming completions: echo comes with the first chunk; text and logprobs match the unary answer', async () => {
    const params = { model: MODEL, prompt: 'Once upon a time', echo: true, logprobs: 1, ...FIXED };
    const unary = await client.completions.create(params as CompletionParams);
    const stream = await client.completions.create({ ...params, stream: true } as OpenAI.CompletionCreateParamsStreaming);
    const texts: string[] = [];
    const tokens: string[] = [];
    const offsets: number[] = [];
    for await (const chunk of stream) {
      texts.push(chunk.choices[0]!.text);
      tokens.push(...(chunk.choices[0]!.logprobs?.tokens ?? []));
      offsets.push(...(chunk.choices[0]!.logprobs?.text_offset ?? []));
    }
    assert.ok(texts[0]!.startsWith('Once upon a time'));
    assert.equal(texts.join(''), unary.choices[0]!.text);
    assert.deepEqual(tokens, unary.choices[0]!.logprobs!.tokens);
    assert.deepEqual(offsets, unary.choices[0]!.logprobs!.text_offset);
  });

  test('echo without logprobs, of token-id prompts and of a batch: each choice starts with its own prompt', async () => {
    const single = await client.completions.create({ model: MODEL, prompt: 'Hello world', echo: true, ...FIXED } as CompletionParams);
    assert.ok(single.choices[0]!.text.startsWith('Hello world'));
    assert.equal(single.choices[0]!.logprobs, null);
    const ids = await client.completions.create({ model: MODEL, prompt: [9707, 1879], echo: true, ...FIXED } as CompletionParams);
    assert.ok(ids.choices[0]!.text.startsWith('Hello world'), ids.choices[0]!.text);
    const batch = await client.completions.create({ model: MODEL, prompt: ['First prompt', 'Second prompt'], echo: true, n: 2, ...FIXED } as CompletionParams);
    const texts = [...batch.choices].sort((a, b) => a.index - b.index).map((c) => c.text);
    assert.deepEqual(texts.map((t) => t.startsWith('First prompt')), [true, true, false, false]);
    assert.deepEqual(texts.map((t) => t.startsWith('Second prompt')), [false, false, true, true]);
    const plain = await client.completions.create({ model: MODEL, prompt: 'Hello world', ...FIXED } as CompletionParams);
    assert.equal(single.choices[0]!.text, `Hello world${plain.choices[0]!.text}`);
  });

  test('out-of-range counts get 400s naming the field, as upstream words them', async () => {
    const rejected = async (call: Promise<unknown>, message: string) => {
      await assert.rejects(call, (err: unknown) => {
        assert.ok(err instanceof OpenAI.APIError);
        assert.equal(err.status, 400);
        assert.match(err.message, new RegExp(message));
        return true;
      });
    };
    await rejected(
      client.chat.completions.create({ model: MODEL, messages: MESSAGES, logprobs: true, top_logprobs: 21 } as ChatParams),
      'Top_logprobs must be between 0 and 20, got 21',
    );
    await rejected(client.completions.create({ model: MODEL, prompt: 'x', logprobs: 6 } as CompletionParams), 'Logprobs must be between 0 and 5, got 6');
    await rejected(client.completions.create({ model: MODEL, prompt: 'x', logprobs: -1 } as CompletionParams), 'logprobs');
  });
});
