import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Tokenizer } from 'tokenizers';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor, routingFromHeaders } from '../../../src/pipeline/preprocess/index.js';
import { ValidationError } from '../../../src/protocols/index.js';

const card = loadDefaultModelCard();
const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
const pre = new Preprocessor(card, tokenizer);
const native = Tokenizer.fromFile(card.tokenizerJsonPath);

const chat = (extra: Record<string, unknown> = {}) =>
  pre.preprocessChat(pre.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'Hello there' }], ...extra }));

const completion = (extra: Record<string, unknown>) => pre.preprocessCompletion(pre.validateCompletion({ model: 'Qwen/Qwen3-0.6B', ...extra }));

async function rejects400(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => err instanceof ValidationError && err.httpStatus === 400 && err.message === message);
}

describe('preprocessChat', () => {
  it('tokenizes the rendered prompt, special tokens as their ids', async () => {
    const run = await chat();
    assert.equal(run.formattedPrompt, '<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n');
    const expected = (await native.encode(run.formattedPrompt!, null, { addSpecialTokens: false })).getIds();
    assert.deepEqual(run.request.token_ids, expected);
    assert.equal(run.request.token_ids[0], 151644);
    assert.ok(run.request.token_ids.includes(151645));
    assert.equal(run.promptTokens, expected.length);
    assert.equal(run.n, 1);
    assert.ok(run.tokenizeMs >= 0);
  });

  it('hides the model EOS ids and defaults max_tokens to the rest of the context', async () => {
    const { request, promptTokens } = await chat();
    assert.deepEqual(request.stop_conditions.stop_token_ids_hidden, [151645, 151643]);
    assert.deepEqual(request.eos_token_ids, [151645, 151643]);
    assert.equal(request.stop_conditions.max_tokens, card.contextLength - promptTokens);
    assert.equal(request.output_options.skip_special_tokens, true);
    assert.equal(request.model, 'Qwen/Qwen3-0.6B');
  });

  it('ignore_eos clears the hidden stops and the EOS ids', async () => {
    const { request } = await chat({ ignore_eos: true, stop: ['x'], max_tokens: 5 });
    assert.equal(request.stop_conditions.stop_token_ids_hidden, null);
    assert.equal(request.stop_conditions.stop, null);
    assert.equal(request.stop_conditions.ignore_eos, true);
    assert.deepEqual(request.eos_token_ids, []);
  });

  it('maps sampling, stop and output fields', async () => {
    const { request } = await chat({
      max_completion_tokens: 7,
      max_tokens: 99,
      stop: 'END',
      stop_token_ids: [5],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 0,
      min_p: 0.1,
      seed: 42,
      n: 2,
      logprobs: true,
      min_tokens: 2,
      skip_special_tokens: false,
      response_format: { type: 'json_object' },
      nvext: { backend_instance_id: 12, annotations: ['formatted_prompt'], agent_hints: { osl: 30, priority: 2 }, cache_salt: 'salt', max_thinking_tokens: 9 },
    });
    assert.equal(request.stop_conditions.max_tokens, 7);
    assert.deepEqual(request.stop_conditions.stop, ['END']);
    assert.deepEqual(request.stop_conditions.stop_token_ids, [5]);
    assert.equal(request.stop_conditions.min_tokens, 2);
    assert.equal(request.stop_conditions.max_thinking_tokens, 9);
    assert.equal(request.sampling_options.temperature, 0.5);
    assert.equal(request.sampling_options.top_k, -1);
    assert.equal(request.sampling_options.seed, 42);
    assert.equal(request.sampling_options.n, 2);
    assert.deepEqual(request.sampling_options.guided_decoding?.json, { type: 'object' });
    assert.equal(request.output_options.logprobs, 1);
    assert.equal(request.output_options.skip_special_tokens, false);
    assert.deepEqual(request.annotations, ['formatted_prompt']);
    assert.equal(request.routing?.backend_instance_id, 12);
    assert.equal(request.routing?.expected_output_tokens, 30);
    assert.equal(request.routing?.priority, 2);
    assert.equal(request.routing?.cache_salt, 'salt');
    assert.deepEqual(request.extra_args, { cache_salt: 'salt' });
  });

  it('routing headers win over the body nvext, agent hints key by key; without nvext only the tenant salt is honoured', async () => {
    const body = {
      model: 'Qwen/Qwen3-0.6B',
      messages: [{ role: 'user', content: 'Hello there' }],
      nvext: { backend_instance_id: 12, session_id: 'body', agent_hints: { osl: 30, priority: 2 } },
    };
    const routing = routingFromHeaders((name) => ({ 'x-dynamo-worker-instance-id': '99', 'x-dynamo-request-priority': '-1', 'x-tenant-id': 'acme' })[name]);
    const { request } = await pre.preprocessChat(pre.validateChat(body), routing);
    assert.equal(request.routing?.backend_instance_id, '99');
    assert.equal(request.routing?.decode_worker_id, '99');
    assert.equal(request.routing?.session_id, 'body');
    assert.equal(request.routing?.expected_output_tokens, 30);
    assert.equal(request.routing?.priority, -1);
    assert.equal(request.routing?.cache_salt, 'acme');
    assert.deepEqual(request.extra_args, { cache_salt: 'acme' });

    const headersOnly = await pre.preprocessChat(pre.validateChat({ ...body, nvext: undefined }), routingFromHeaders((name) => (name === 'thread-id' ? 't1' : undefined)));
    assert.equal(headersOnly.request.routing?.session_id, 't1');
    const none = await pre.preprocessChat(pre.validateChat({ ...body, nvext: undefined }));
    assert.equal(none.request.routing, null);

    const off = new Preprocessor(card, tokenizer, { nvextEnabled: false });
    const ignored = await off.preprocessChat(off.validateChat(body), routing);
    assert.deepEqual(ignored.request.routing, {
      backend_instance_id: null,
      prefill_worker_id: null,
      decode_worker_id: null,
      dp_rank: null,
      prefill_dp_rank: null,
      expected_output_tokens: null,
      lora_name: null,
      cache_salt: 'acme',
      priority: null,
      session_id: null,
    });
  });

  it('stop token ids given in `stop` become stop_token_ids', async () => {
    const { request } = await chat({ stop: [11, 12] });
    assert.equal(request.stop_conditions.stop, null);
    assert.deepEqual(request.stop_conditions.stop_token_ids, [11, 12]);
  });

  it('greed_sampling forces greedy', async () => {
    const { request } = await chat({ temperature: 1.2, top_p: 0.5, top_k: 5, presence_penalty: 1, nvext: { greed_sampling: true } });
    assert.equal(request.sampling_options.temperature, 0);
    assert.equal(request.sampling_options.top_p, null);
    assert.equal(request.sampling_options.top_k, null);
    assert.equal(request.sampling_options.presence_penalty, null);
  });

  it('enable_thinking false via chat_template_kwargs ends with an empty think block', async () => {
    const run = await chat({ chat_template_kwargs: { enable_thinking: false } });
    assert.ok(run.formattedPrompt!.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n'));
    const viaThinking = await chat({ thinking: { type: 'disabled' } });
    assert.equal(viaThinking.formattedPrompt, run.formattedPrompt);
  });

  it('nvext.token_data skips templating and tokenization', async () => {
    const run = await chat({ nvext: { token_data: [1, 2, 3] } });
    assert.deepEqual(run.request.token_ids, [1, 2, 3]);
    assert.equal(run.promptTokens, 3);
    assert.equal(run.formattedPrompt, undefined);
  });

  it('strips NUL bytes before tokenizing', async () => {
    const clean = await chat({ messages: [{ role: 'user', content: 'ab' }] });
    const withNul = await chat({ messages: [{ role: 'user', content: 'a\u0000b' }] });
    assert.deepEqual(withNul.request.token_ids, clean.request.token_ids);
  });
});

describe('context window', () => {
  const small = new Preprocessor({ ...card, contextLength: 20 }, tokenizer);
  const smallChat = (extra: Record<string, unknown>) =>
    small.preprocessChat(small.validateChat({ model: 'm', messages: [{ role: 'user', content: 'Hello there' }], ...extra }));

  it('a prompt filling the context is rejected', async () => {
    const long = 'word '.repeat(40);
    const tokens = (await native.encode(`<|im_start|>user\n${long}<|im_end|>\n<|im_start|>assistant\n`, null, { addSpecialTokens: false })).getIds().length;
    await rejects400(
      smallChat({ messages: [{ role: 'user', content: long }] }),
      `This model's maximum context length is 20 tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    );
  });

  it('prompt + max_tokens over the context is rejected with both numbers', async () => {
    const { promptTokens } = await smallChat({});
    const max = 21 - promptTokens;
    await rejects400(
      smallChat({ max_tokens: max }),
      `This model's maximum context length is 20 tokens. However, you requested 21 tokens (${promptTokens} in the messages, ${max} in the completion). Please reduce the length of the messages or completion.`,
    );
    const fits = await smallChat({ max_tokens: max - 1 });
    assert.equal(fits.request.stop_conditions.max_tokens, max - 1);
  });
});

describe('preprocessCompletion', () => {
  it('one prepared request per prompt of a batch', async () => {
    const runs = await completion({ prompt: ['Hello', 'Good morning'], max_tokens: 4, n: 2, temperature: 0.7 });
    assert.equal(runs.length, 2);
    assert.deepEqual(runs[0]!.request.token_ids, (await native.encode('Hello', null, { addSpecialTokens: true })).getIds());
    assert.deepEqual(runs[1]!.request.token_ids, (await native.encode('Good morning', null, { addSpecialTokens: true })).getIds());
    assert.equal(runs[1]!.formattedPrompt, 'Good morning');
    for (const run of runs) {
      assert.equal(run.n, 2);
      assert.equal(run.request.stop_conditions.max_tokens, 4);
    }
  });

  it('token prompts pass through untouched', async () => {
    const single = await completion({ prompt: [9, 8, 7] });
    assert.equal(single.length, 1);
    assert.deepEqual(single[0]!.request.token_ids, [9, 8, 7]);
    assert.equal(single[0]!.tokenizeMs, 0);
    const batch = await completion({ prompt: [[1, 2], [3]] });
    assert.deepEqual(batch.map((r) => r.request.token_ids), [[1, 2], [3]]);
  });

  it('a string prompt, echo asks for prompt logprobs', async () => {
    const [run] = await completion({ prompt: 'Once upon a time', echo: true, logprobs: 2 });
    assert.equal(run!.promptTokens, run!.request.token_ids.length);
    assert.equal(run!.request.output_options.prompt_logprobs, 1);
    assert.equal(run!.request.output_options.logprobs, 2);
    assert.equal(run!.request.stop_conditions.max_tokens, card.contextLength - run!.promptTokens);
  });
});
