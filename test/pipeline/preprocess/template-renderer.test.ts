// Long conversations render on the template thread: the same text as inline, the same errors.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { ChatTemplate } from '../../../src/pipeline/preprocess/index.js';
import { templateRenderThread } from '../../../src/pipeline/preprocess/template-renderer.js';
import { eventually } from '../../support/in-process.js';
import type { ChatCompletionRequest, ChatMessage } from '../../../src/protocols/index.js';

const qwen = new ChatTemplate(loadDefaultModelCard());
const conversation = (n: number): ChatMessage[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i}` }) as ChatMessage);
const chat = (extra: Partial<ChatCompletionRequest>): ChatCompletionRequest => ({ model: 'm', messages: conversation(200), ...extra });

test('a long conversation renders off the loop to exactly the inline text', async () => {
  const tool = { type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } } };
  for (const request of [
    chat({}),
    chat({ tools: [tool] }),
    chat({ chat_template_args: { enable_thinking: false } }),
    chat({ continue_final_message: true, add_generation_prompt: false }),
    chat({ messages: conversation(3) }),
  ]) {
    assert.equal(await qwen.renderOffLoop(request), qwen.render(request));
  }
});

test('a template error off the loop is the same 400', async () => {
  const request = chat({ chat_template_args: { tools: 5 } });
  const inline = (() => {
    try {
      qwen.render(request);
    } catch (err) {
      return err as Error & { httpStatus: number };
    }
    assert.fail('expected an error');
  })();
  await assert.rejects(qwen.renderOffLoop(request), (err: Error & { httpStatus: number }) => {
    assert.equal(err.httpStatus, 400);
    assert.equal(err.message, inline.message);
    return true;
  });
});

test('renders in flight together all come back to their own requests', async () => {
  const requests = Array.from({ length: 8 }, (_, k) => chat({ messages: conversation(40 + k) }));
  const texts = await Promise.all(requests.map((r) => qwen.renderOffLoop(r)));
  texts.forEach((text, k) => assert.equal(text, qwen.render(requests[k]!)));
});

test('the thread ends when idle and a later long render starts another', async () => {
  const request = chat({});
  await qwen.renderOffLoop(request);
  assert.ok(templateRenderThread.running);
  await eventually(() => !templateRenderThread.running, 60_000, 'the idle render thread to end');
  assert.equal(await qwen.renderOffLoop(request), qwen.render(request));
});
