// DYN_ENABLE_RL on `serve`, through the openai SDK: the ids a unary chat answer carries are its
// prompt's (as /tokenize renders the same messages) and the ones the mocker generated (they decode
// to the answer's text); the token-in path answers the same prompt the same way. With the admin
// facade on (its own port), a pause in abort mode ends an answer in flight and holds the next.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import type { RunningService } from '../../../../src/launch/index.js';
import { postJson, serveInProcess } from '../../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
let service: RunningService;
let baseUrl: string;
let client: OpenAI;

type RlChat = OpenAI.ChatCompletion & { prompt_token_ids: number[]; metadata: { weight_version: string }; choices: (OpenAI.ChatCompletion.Choice & { token_ids: number[] })[] };

before(async () => {
  ({ service, baseUrl } = await serveInProcess(['--num-workers', '2', '--rl-port', '0'], { DYN_ENABLE_RL: 'true', DYN_ENABLE_RL_ENDPOINTS: 'true' }));
  client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
});
after(() => service.stop());

const messages = [{ role: 'user' as const, content: 'Name three moons of Jupiter' }];

test('unary chat answers with the prompt ids and the generated ids', async () => {
  const res = (await client.chat.completions.create({ model: MODEL, messages, max_tokens: 12, seed: 5, ignore_eos: true } as OpenAI.ChatCompletionCreateParamsNonStreaming)) as RlChat;
  const tokenized = (await (await postJson(baseUrl, '/tokenize', { model: MODEL, messages, add_generation_prompt: true })).json()) as { tokens: number[] };
  assert.deepEqual(res.prompt_token_ids, tokenized.tokens);
  assert.equal(res.usage!.prompt_tokens, res.prompt_token_ids.length);
  const ids = res.choices[0]!.token_ids;
  assert.equal(ids.length, 12);
  assert.equal(res.usage!.completion_tokens, 12);
  const detokenized = (await (await postJson(baseUrl, '/detokenize', { model: MODEL, tokens: ids })).json()) as { prompt: string };
  assert.equal(detokenized.prompt, res.choices[0]!.message.content);
  assert.equal(res.metadata.weight_version, 'initial', 'the mocker serves --enable-rl too and reports its version');

  // Token in, token out: the same ids as the prompt give the same answer.
  const again = (await client.chat.completions.create({ model: MODEL, messages: [], prompt_token_ids: res.prompt_token_ids, max_tokens: 12, seed: 5, ignore_eos: true } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)) as RlChat;
  assert.deepEqual(again.prompt_token_ids, res.prompt_token_ids);
  assert.deepEqual(again.choices[0]!.token_ids, ids);
});

test('pause in abort mode ends the answer in flight and holds the next until resume', async () => {
  const admin = `http://127.0.0.1:${service.rlPort}/v1/rl`;
  const stream = await client.chat.completions.create({ model: MODEL, messages, max_tokens: 20000, ignore_eos: true, stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming).catch((err: Error) => err);
  assert.ok(!(stream instanceof Error), String(stream));
  const it = stream[Symbol.asyncIterator]();
  await it.next();
  const paused = (await (await fetch(`${admin}/pause?mode=abort`, { method: 'POST' })).json()) as { status: string; workers: unknown[] };
  assert.equal(paused.status, 'ok');
  assert.equal(paused.workers.length, 2);
  let last: OpenAI.ChatCompletionChunk | undefined;
  for (let r = await it.next(); !r.done; r = await it.next()) last = r.value;
  assert.equal(last?.choices[0]?.finish_reason, 'stop', 'ended by the pause (an engine abort reads as stop)');

  let answered = false;
  const held = client.chat.completions.create({ model: MODEL, messages, max_tokens: 2 }).then((r) => ((answered = true), r));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(answered, false);
  assert.equal((await fetch(`${admin}/resume`, { method: 'POST' })).status, 200);
  assert.equal((await held).choices.length, 1);
});
