// `--dyn-preprocess-workers`: prompts rendered and tokenized on the pool's threads give the very
// prepared requests of the inline path; a thread that dies fails only its request, with a 500, and
// the pool serves the next one; closing the pool (or the frontend) leaves no thread.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import OpenAI from 'openai';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor, PreprocessPool, validateChatRequest, validateCompletionRequest } from '../../../src/pipeline/index.js';
import { isDynamoError } from '../../../src/protocols/index.js';
import { serveInProcess } from '../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const card = loadDefaultModelCard();
const tool = { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const long = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i}: the quick brown fox jumps over the lazy dog, naïvely — 東京 🚀.`).join(' ');

/** Chat bodies: short and long, multi-turn, tools, reasoning, tool calls, continue_final_message, parts. */
const CHATS: Record<string, unknown>[] = [
  { messages: [{ role: 'user', content: 'hi' }] },
  { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: long(200) }] },
  { messages: [{ role: 'user', content: long(50) }, { role: 'assistant', content: 'ok', reasoning_content: 'thinking' }, { role: 'user', content: long(80) }] },
  { messages: [{ role: 'user', content: long(40) }], tools: [tool], tool_choice: 'auto' },
  { messages: [{ role: 'user', content: long(40) }], tools: [tool], tool_choice: 'none' },
  {
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: long(30) },
    ],
    tools: [tool],
  },
  { messages: [{ role: 'user', content: [{ type: 'text', text: long(20) }, { type: 'text', text: 'second part' }] }] },
  { messages: [{ role: 'user', content: long(30) }, { role: 'assistant', content: 'The answer begins' }], continue_final_message: true, add_generation_prompt: false },
  { messages: [{ role: 'user', content: long(30) }], chat_template_args: { enable_thinking: false } },
  { messages: Array.from({ length: 60 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} ${long(2)}` })) },
];
const PROMPTS: unknown[] = ['hello', long(300), ['a batch', long(10)], 'text with\0 a NUL'];

/** A prepared request without its stage timings, which differ between any two runs. */
function untimed<T extends { tokenizeMs: number; templateMs: number; tokenizeStartedAt: number }>(run: T): Omit<T, 'tokenizeMs' | 'templateMs' | 'tokenizeStartedAt'> {
  const { tokenizeMs: _tokenize, templateMs: _template, tokenizeStartedAt: _started, ...rest } = run;
  return rest;
}

function outcome<T>(run: () => Promise<T>): Promise<{ value?: T; error?: string }> {
  return run().then(
    (value) => ({ value }),
    (err: unknown) => ({ error: `${isDynamoError(err) ? err.kind : 'plain'}: ${(err as Error).message}` }),
  );
}

describe('preprocessing on the pool', () => {
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  const pool = new PreprocessPool(2, 0);
  const inline = new Preprocessor(card, tokenizer);
  const pooled = new Preprocessor(card, tokenizer, { pool });
  after(() => pool.close());

  test('chat requests: the same prepared requests (token ids, prompt text) as inline', async () => {
    for (const body of CHATS) {
      const req = validateChatRequest({ model: MODEL, ...body });
      const [a, b] = await Promise.all([inline.preprocessChat(req), pooled.preprocessChat(req)]);
      assert.deepEqual(untimed(b), untimed(a), JSON.stringify(body).slice(0, 120));
      assert.ok(a.request.token_ids.length > 0);
    }
  });

  test('completions prompts: the same token ids, special tokens and all', async () => {
    for (const prompt of PROMPTS) {
      const req = validateCompletionRequest({ model: MODEL, prompt });
      const [a, b] = await Promise.all([inline.preprocessCompletion(req), pooled.preprocessCompletion(req)]);
      assert.deepEqual(b.map(untimed), a.map(untimed));
    }
  });

  test('errors are the inline ones: a template error and the context window', async () => {
    const broken = { ...card, chatTemplates: { default: '{{ raise_exception("no system messages") }}' } };
    const bad = validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
    const tooLong = validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: long(4000) }] });
    const small = { ...card, contextLength: 1000 };
    for (const [c, req] of [[broken, bad], [small, tooLong]] as const) {
      const a = await outcome(() => new Preprocessor(c, tokenizer).preprocessChat(req));
      const b = await outcome(() => new Preprocessor(c, tokenizer, { pool }).preprocessChat(req));
      assert.ok(a.error?.startsWith('validation: '), a.error);
      assert.deepEqual(b, a);
    }
  });

  test('small prompts stay inline: no thread starts for them', async () => {
    const lazy = new PreprocessPool(1, 1000);
    const pre = new Preprocessor(card, tokenizer, { pool: lazy });
    await pre.preprocessChat(validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: 'short' }] }));
    assert.equal(lazy.running, 0);
    await pre.preprocessChat(validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: long(100) }] }));
    assert.equal(lazy.running, 1);
    await lazy.close();
    assert.equal(lazy.running, 0);
  });
});

describe('a preprocessing thread that dies', () => {
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  const pool = new PreprocessPool(2, 0, new URL('./crashing-preprocess-worker.js', import.meta.url));
  const pre = new Preprocessor(card, tokenizer, { pool });
  after(() => pool.close());
  const chat = (content: string) => validateChatRequest({ model: MODEL, messages: [{ role: 'user', content }] });

  test('fails only its request, with a 500 that says so; the pool recovers', async () => {
    const expected = await new Preprocessor(card, tokenizer).preprocessChat(chat('after the crash'));
    for (let round = 0; round < 3; round++) {
      const [crashed, other] = await Promise.allSettled([pre.preprocessChat(chat('CRASH_THREAD now')), pre.preprocessChat(chat('a bystander'))]);
      assert.equal(crashed.status, 'rejected');
      const err = (crashed as PromiseRejectedResult).reason as Error;
      assert.ok(isDynamoError(err) && err.httpStatus === 500, String(err));
      assert.match(err.message, /preprocessing thread failed while preparing this request/);
      assert.equal(other.status, 'fulfilled');
      const next = await pre.preprocessChat(chat('after the crash'));
      assert.deepEqual(next.request.token_ids, expected.request.token_ids);
    }
  });
});

describe('the frontend with --dyn-preprocess-workers', () => {
  const threads = () => readdirSync('/proc/self/task').length;

  test('answers big and small prompts; stopping it ends its threads', async () => {
    const ctx = await serveInProcess(['--speedup-ratio', '1000', '--dyn-preprocess-workers', '2'], { DYN_PREPROCESS_MIN_CHARS: '2000' });
    const client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    try {
      const small = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
      assert.equal(small.usage!.completion_tokens, 2);
      const before = threads();
      const prompt = long(100);
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: prompt }], max_tokens: 2 })),
      );
      const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
      const inline = await new Preprocessor(card, tokenizer).preprocessChat(validateChatRequest({ model: MODEL, messages: [{ role: 'user', content: prompt }] }));
      for (const answer of answers) assert.equal(answer.usage!.prompt_tokens, inline.promptTokens);
      assert.ok(threads() >= before + 2, `${threads()} threads, ${before} before`);
    } finally {
      const during = threads();
      await ctx.service.stop();
      // Both pool threads have ended by the time stop resolves (every other thread stays).
      assert.ok(threads() <= during - 2, `${threads()} threads after stop, ${during} before it`);
    }
  });
});
