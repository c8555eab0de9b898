// The RL request extensions of /v1/chat/completions as the engine receives them: a token-in prompt
// (prompt_token_ids, or the legacy tokens), truncate_prompt_tokens, the sampling constraints and
// the rollout passthroughs; and the token ids and weight version the answer carries back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { HttpService } from '../../../../src/frontends/http/index.js';
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../../../src/protocols/index.js';
import { injectedHttpWithEngines } from '../../../support/http-with-engines.js';

const seen: PreprocessedRequest[] = [];
/** Answers three fixed tokens and reports a weight version, as an RL worker does. */
const engine: EngineClient = {
  async *generate(request): AsyncGenerator<LLMEngineOutput> {
    seen.push(request);
    yield { token_ids: [9707] };
    yield { token_ids: [11] };
    yield { token_ids: [1879], finish_reason: 'length', engine_data: { weight_version: 'step_7' } };
  },
};

type Extended = OpenAI.ChatCompletion & { prompt_token_ids?: number[]; metadata?: { weight_version: string }; choices: (OpenAI.ChatCompletion.Choice & { token_ids?: number[] })[] };

describe('RL extensions of chat completions', () => {
  let http: HttpService;
  let client: OpenAI;
  let rlHttp: HttpService;
  let rlClient: OpenAI;

  before(async () => {
    const plain = await injectedHttpWithEngines({ m: engine });
    http = plain.http;
    client = new OpenAI({ baseURL: `${plain.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0, fetch: plain.fetch });
    const rl = await injectedHttpWithEngines({ m: engine }, { rlTokenIds: true });
    rlHttp = rl.http;
    rlClient = new OpenAI({ baseURL: `${rl.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0, fetch: rl.fetch });
  });
  after(async () => {
    await http.shutdown();
    await rlHttp.shutdown();
  });

  const chat = (c: OpenAI, body: Record<string, unknown>) =>
    c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hello' }], ...body } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming) as Promise<Extended>;

  test('prompt_token_ids is the prompt, instead of the messages', async () => {
    const res = await chat(client, { messages: undefined, prompt_token_ids: [1, 2, 3, 4], return_token_ids: true });
    assert.deepEqual(seen.at(-1)!.token_ids, [1, 2, 3, 4]);
    assert.deepEqual(res.prompt_token_ids, [1, 2, 3, 4]);
    assert.deepEqual(res.choices[0]!.token_ids, [9707, 11, 1879]);
    assert.equal(res.usage!.prompt_tokens, 4);
    await chat(client, { messages: [], prompt_token_ids: [5, 6] });
    assert.deepEqual(seen.at(-1)!.token_ids, [5, 6], 'empty messages are fine beside a token prompt');
  });

  test('the legacy `tokens` travels as nvext.token_data', async () => {
    await chat(client, { messages: undefined, tokens: [7, 8, 9] });
    assert.deepEqual(seen.at(-1)!.token_ids, [7, 8, 9]);
    await assert.rejects(chat(client, { tokens: [1], prompt_token_ids: [2] }), /as `prompt_token_ids` or as `tokens`, not both/);
    await assert.rejects(chat(client, { tokens: [1], nvext: { token_data: [2] } }), /as `tokens` or as `nvext.token_data`, not both/);
    await assert.rejects(chat(client, { messages: undefined, prompt_token_ids: [] }), /`prompt_token_ids` must hold at least one token ID/);
    await assert.rejects(chat(client, { messages: undefined }), /missing field `messages`/);
  });

  test('truncate_prompt_tokens keeps the last k tokens (-1: the context length)', async () => {
    const res = await chat(client, { prompt_token_ids: [1, 2, 3, 4, 5, 6], truncate_prompt_tokens: 2, return_token_ids: true });
    assert.deepEqual(seen.at(-1)!.token_ids, [5, 6]);
    assert.deepEqual(res.prompt_token_ids, [5, 6]);
    await chat(client, { prompt_token_ids: [1, 2, 3], truncate_prompt_tokens: -1 });
    assert.deepEqual(seen.at(-1)!.token_ids, [1, 2, 3]);
    await assert.rejects(chat(client, { truncate_prompt_tokens: 0 }), /`truncate_prompt_tokens` must be -1/);
  });

  test('sampling constraints and rollout fields reach the engine', async () => {
    await chat(client, {
      cache_salt: 'rollout-3',
      weight_version: 'step_7',
      stop_token_ids: [42],
      allowed_token_ids: [9707, 11, 1879],
      bad_words_token_ids: [[13, 14]],
      truncate_prompt_tokens: 64,
      return_prompt_logprobs: true,
      return_routed_experts: true,
    });
    const req = seen.at(-1)!;
    assert.deepEqual(req.stop_conditions.stop_token_ids, [42]);
    assert.deepEqual(req.sampling_options.allowed_token_ids, [9707, 11, 1879]);
    assert.deepEqual(req.sampling_options.bad_words_token_ids, [[13, 14]]);
    assert.equal(req.routing!.cache_salt, 'rollout-3');
    assert.deepEqual(req.extra_args, {
      cache_salt: 'rollout-3',
      weight_version: 'step_7',
      truncate_prompt_tokens: 64,
      return_prompt_logprobs: true,
      return_routed_experts: true,
    });
    await assert.rejects(chat(client, { weight_version: 7 }), /weight_version/);
  });

  test('without DYN_ENABLE_RL: token ids only when asked for; the weight version always', async () => {
    const res = await chat(client, {});
    assert.equal(res.prompt_token_ids, undefined);
    assert.equal(res.choices[0]!.token_ids, undefined);
    assert.deepEqual(res.metadata, { weight_version: 'step_7' });
    const asked = await chat(client, { return_token_ids: true });
    assert.deepEqual(asked.prompt_token_ids, seen.at(-1)!.token_ids);
    assert.deepEqual(asked.choices[0]!.token_ids, [9707, 11, 1879]);
  });

  test('with DYN_ENABLE_RL: unary answers carry them unless the request says no', async () => {
    const res = await chat(rlClient, {});
    assert.deepEqual(res.prompt_token_ids, seen.at(-1)!.token_ids);
    assert.deepEqual(res.choices[0]!.token_ids, [9707, 11, 1879]);
    const declined = await chat(rlClient, { return_token_ids: false });
    assert.equal(declined.choices[0]!.token_ids, undefined);
    const two = await chat(rlClient, { n: 2 });
    assert.equal(two.choices.length, 2);
    assert.ok(two.choices.every((c) => !('token_ids' in c)), 'n > 1 answers without them');
    await assert.rejects(chat(rlClient, { n: 2, return_token_ids: true }), (err: Error) => err instanceof OpenAI.BadRequestError && /`return_token_ids` does not support n > 1/.test(err.message));
  });

  test('a stream asked for token ids carries each chunk ids and the prompt ids first', async () => {
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      return_token_ids: true,
    } as unknown as OpenAI.ChatCompletionCreateParamsStreaming);
    const chunks: (OpenAI.ChatCompletionChunk & { prompt_token_ids?: number[] })[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.deepEqual(chunks[0]!.prompt_token_ids, seen.at(-1)!.token_ids);
    assert.ok(chunks.slice(1).every((c) => c.prompt_token_ids === undefined));
    const ids = chunks.flatMap((c) => (c.choices[0] as { token_ids?: number[] } | undefined)?.token_ids ?? []);
    assert.deepEqual(ids, [9707, 11, 1879]);
    const rlStream = await rlClient.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const chunk of rlStream) assert.equal((chunk as { prompt_token_ids?: number[] }).prompt_token_ids, undefined, 'streams only on request');
  });
});
