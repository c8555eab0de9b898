import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor } from '../../../src/pipeline/preprocess/index.js';
import { PromptMemo } from '../../../src/pipeline/preprocess/prompt-memo.js';
import type { ChatCompletionRequest } from '../../../src/protocols/index.js';

const chatOf = (fields: Record<string, unknown>): ChatCompletionRequest => ({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], ...fields }) as ChatCompletionRequest;

describe('PromptMemo.keyOf', () => {
  const memo = new PromptMemo();

  it('is the same for equal template inputs and ignores what the template does not read', () => {
    assert.equal(memo.keyOf(chatOf({ max_tokens: 5 })), memo.keyOf(chatOf({ temperature: 0.1 })));
  });

  it('tells apart what renders differently: undefined from absent, text from numbers, key order, generation prompt', () => {
    const keys = [
      chatOf({ messages: [{ role: 'user', content: 'Hi' }] }),
      chatOf({ messages: [{ role: 'user', content: 'Hi', name: undefined }] }),
      chatOf({ messages: [{ role: 'user', content: 'Hi', name: null }] }),
      chatOf({ messages: [{ content: 'Hi', role: 'user' }] }),
      chatOf({ messages: [{ role: 'user', content: '1' }] }),
      chatOf({ messages: [{ role: 'user', content: 1 }] }),
      chatOf({ add_generation_prompt: false }),
      chatOf({ chat_template_args: { enable_thinking: false } }),
      chatOf({ chat_template_args: { a: [1, 'a'] } }),
      chatOf({ chat_template_args: { a: ['a]}'] } }),
      chatOf({ chat_template_args: { a: [11] } }),
      chatOf({ chat_template_args: { a: ['1', 1] } }),
      chatOf({ tools: [{ type: 'function', function: { name: 'f' } }] }),
    ].map((req) => memo.keyOf(req));
    assert.equal(new Set(keys).size, keys.length);
  });

  it('keeps nothing it cannot write exactly, or that is too big', () => {
    assert.equal(memo.keyOf(chatOf({ chat_template_args: { at: new Date(0) } })), null);
    assert.equal(memo.keyOf(chatOf({ chat_template_args: { x: -0 } })), null);
    assert.equal(memo.keyOf(chatOf({ messages: [{ role: 'user', content: 'x'.repeat(5000) }] })), null);
  });

  it('keeps a template that reads the clock out', () => {
    assert.equal(PromptMemo.keeps(['{{ messages[0].content }}']), true);
    assert.equal(PromptMemo.keeps(['{{ strftime_now("%Y") }}']), false);
  });

  it('remembers the most recent prompts across generations', () => {
    const m = new PromptMemo();
    m.remember('a', { text: 'A', tokens: [1] });
    for (let i = 0; i < 300; i++) m.remember(`k${i}`, { text: '', tokens: [] });
    assert.equal(m.get('a'), undefined);
    assert.deepEqual(m.get("k299"), { text: '', tokens: [] });
  });
});

describe('Preprocessor with kept prompts', () => {
  const card = loadDefaultModelCard();
  const pre = new Preprocessor(card, new HfTokenizer(card.tokenizerJsonPath));
  const chat = (content: string) => pre.preprocessChat(pre.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content }] }));

  it('a chat seen again gets the same prompt and ids, in an array of its own', async () => {
    const runs = [];
    for (let i = 0; i < 40; i++) runs.push(await chat('Say hello.'));
    const first = runs[0]!;
    for (const run of runs.slice(1)) {
      assert.equal(run.formattedPrompt, first.formattedPrompt);
      assert.deepEqual(run.request.token_ids, first.request.token_ids);
    }
    runs.at(-1)!.request.token_ids.push(7);
    assert.deepEqual((await chat('Say hello.')).request.token_ids, first.request.token_ids);
    assert.notEqual((await chat('Say hello!')).formattedPrompt, first.formattedPrompt);
  });

  it('a template that reads the clock renders every time', async () => {
    const clocked = { ...card, chatTemplates: { default: '{{ strftime_now("%Y") }}{{ messages[0].content }}' } };
    const p = new Preprocessor(clocked, new HfTokenizer(card.tokenizerJsonPath));
    const run = await p.preprocessChat(p.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'x' }] }));
    assert.equal(run.formattedPrompt, `${new Date().getFullYear()}x`);
  });
});
