// The reasoning parser end to end: `serve --dyn-reasoning-parser qwen3 --mocker-output
// echo-last-user`, so the engine answers with the user's text through the real runtime, and the
// official clients see reasoning separated in chat, Responses and Messages, unary and streamed;
// a reply without think tags staying answer text; `event: reasoning_dispatch`; and a model without
// a parser unchanged.
import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { postJson, serveInProcess } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
// Qwen3's hybrid template leaves the span closed: the model writes `<think>` itself.
const THOUGHT = 'Two and two, carried over: für sure 4.';
const ANSWER = 'The answer is 4. ✓';
const SAID = `<think>${THOUGHT}</think>${ANSWER}`;
const messages = [{ role: 'user' as const, content: SAID }];
/** A reply with no think tags at all (thinking off, or a model that answered straight away). */
const PLAIN = 'Just the answer: 4.';

/** The `event:` frames of an SSE body, by name, with their parsed data. */
function namedEvents(body: string, name: string): unknown[] {
  return body
    .split('\n\n')
    .filter((frame) => frame.startsWith(`event: ${name}\n`))
    .map((frame) => JSON.parse(frame.split('\n')[1]!.slice('data: '.length)) as unknown);
}

describe('serve --dyn-reasoning-parser qwen3', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let openai: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    server = await serveInProcess([
      '--dyn-reasoning-parser', 'qwen3', '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000',
      '--enable-anthropic-api', '--enable-streaming-reasoning-dispatch',
    ]);
    openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: server.baseUrl, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('chat unary: message.reasoning_content and content apart', async () => {
    const unary = await openai.chat.completions.create({ model: MODEL, messages });
    const message = unary.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    assert.equal(message.reasoning_content, THOUGHT);
    assert.equal(message.content, ANSWER);
    assert.equal(unary.choices[0]!.finish_reason, 'stop');
  });

  test('chat streamed: delta.reasoning_content, then delta.content', async () => {
    let reasoning = '';
    let content = '';
    let reasoningAfterContent = false;
    for await (const chunk of await openai.chat.completions.create({ model: MODEL, messages, stream: true })) {
      // This server has --enable-streaming-reasoning-dispatch: the client yields that event's data too.
      if (!chunk.choices) continue;
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
      if (delta?.reasoning_content && content.length > 0) reasoningAfterContent = true;
      reasoning += delta?.reasoning_content ?? '';
      content += delta?.content ?? '';
    }
    assert.deepEqual({ reasoning, content, reasoningAfterContent }, { reasoning: THOUGHT, content: ANSWER, reasoningAfterContent: false });
  });

  test('a reply without think tags is all content, with thinking on or off', async () => {
    for (const extra of [{}, { chat_template_args: { enable_thinking: false } }, { chat_template_kwargs: { enable_thinking: true } }]) {
      const body = { model: MODEL, messages: [{ role: 'user', content: PLAIN }], ...extra };
      const unary = await openai.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming);
      const message = unary.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
      assert.deepEqual({ reasoning: message.reasoning_content, content: message.content }, { reasoning: undefined, content: PLAIN }, JSON.stringify(extra));
    }
  });

  test('event: reasoning_dispatch carries the whole reasoning block once', async () => {
    const res = await postJson(server.baseUrl, '/v1/chat/completions', { model: MODEL, messages, stream: true });
    assert.equal(res.status, 200);
    assert.deepEqual(namedEvents(await res.text(), 'reasoning_dispatch'), [{ index: 0, reasoning_content: THOUGHT }]);
  });

  test('Responses unary: a reasoning item before the message', async () => {
    const response = await openai.responses.create({ model: MODEL, input: SAID });
    assert.deepEqual(
      response.output.map((item) => item.type),
      ['reasoning', 'message'],
    );
    const reasoning = response.output[0] as OpenAI.Responses.ResponseReasoningItem;
    assert.deepEqual(reasoning.content, [{ type: 'reasoning_text', text: THOUGHT }]);
    assert.deepEqual(reasoning.summary, []);
    assert.equal(response.output_text, ANSWER);
  });

  test('Responses streamed: reasoning_text deltas in their own item, closed before the message opens', async () => {
    const stream = await openai.responses.create({ model: MODEL, input: SAID, stream: true });
    const types: string[] = [];
    let reasoning = '';
    let text = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.reasoning_text.delta') reasoning += event.delta;
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') final = event.response;
    }
    assert.equal(reasoning, THOUGHT);
    assert.equal(text, ANSWER);
    assert.ok(types.indexOf('response.reasoning_text.done') < types.lastIndexOf('response.output_item.added'));
    assert.deepEqual(
      final!.output.map((item) => item.type),
      ['reasoning', 'message'],
    );
    assert.deepEqual((final!.output[0] as OpenAI.Responses.ResponseReasoningItem).content, [{ type: 'reasoning_text', text: THOUGHT }]);
  });

  test('Messages unary: the thinking block first, then the text', async () => {
    const message = await anthropic.messages.create({ model: MODEL, max_tokens: 200, messages });
    assert.deepEqual(message.content, [
      { type: 'thinking', thinking: THOUGHT, signature: '' },
      { type: 'text', text: ANSWER },
    ]);
  });

  test('Messages streamed: a thinking block of thinking_delta, then a text block; finalMessage equals the unary answer', async () => {
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 200, messages });
    const deltas = new Set<string>();
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.add(event.delta.type);
    });
    const final = await stream.finalMessage();
    assert.deepEqual([...deltas].sort(), ['text_delta', 'thinking_delta']);
    assert.deepEqual(final.content, [
      { type: 'thinking', thinking: THOUGHT, signature: '' },
      { type: 'text', text: ANSWER },
    ]);
  });

  test('Messages with thinking disabled: a plain reply is one text block', async () => {
    const plain = [{ role: 'user' as const, content: PLAIN }];
    const message = await anthropic.messages.create({ model: MODEL, max_tokens: 200, messages: plain, thinking: { type: 'disabled' } });
    assert.deepEqual(message.content, [{ type: 'text', text: PLAIN }]);
  });
});

describe('serve without a reasoning parser', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let openai: OpenAI;
  before(async () => {
    server = await serveInProcess(['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000']);
    openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('the think markup stays in the content, unary and streamed', async () => {
    const unary = await openai.chat.completions.create({ model: MODEL, messages });
    const message = unary.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    assert.equal(message.content, SAID);
    assert.equal(message.reasoning_content, undefined);
    let content = '';
    for await (const chunk of await openai.chat.completions.create({ model: MODEL, messages, stream: true })) {
      assert.equal((chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content, undefined);
      content += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(content, SAID);
  });
});
