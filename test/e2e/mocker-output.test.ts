// `serve --mocker-output ...` through the official openai client: the engine's chosen answer comes
// back exactly, unary and streamed, and max_tokens and stop strings still cut it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { serveInProcess } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const TEXT = 'Sure! <tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call> 晴れ';

async function streamed(client: OpenAI, params: Omit<OpenAI.ChatCompletionCreateParamsStreaming, 'model' | 'stream'>) {
  let text = '';
  let finish: string | null = null;
  for await (const chunk of await client.chat.completions.create({ model: MODEL, stream: true, ...params })) {
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  return { text, finish };
}

describe('--mocker-output-text', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let client: OpenAI;
  before(async () => {
    server = await serveInProcess(['--mocker-output-text', TEXT, '--speedup-ratio', '1000']);
    client = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('unary and streamed chat answer exactly the text, ending on EOS', async () => {
    const messages = [{ role: 'user' as const, content: 'what is the weather?' }];
    const unary = await client.chat.completions.create({ model: MODEL, messages });
    assert.equal(unary.choices[0]!.message.content, TEXT);
    assert.equal(unary.choices[0]!.finish_reason, 'stop');
    assert.deepEqual(await streamed(client, { messages }), { text: TEXT, finish: 'stop' });
    const completion = await client.completions.create({ model: MODEL, prompt: 'anything', max_tokens: 100 });
    assert.equal(completion.choices[0]!.text, TEXT);
  });

  test('max_tokens and a stop string still apply', async () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const short = await client.chat.completions.create({ model: MODEL, messages, max_tokens: 2 });
    assert.equal(short.choices[0]!.finish_reason, 'length');
    assert.equal(short.usage!.completion_tokens, 2);
    assert.ok(TEXT.startsWith(short.choices[0]!.message.content!) && short.choices[0]!.message.content!.length > 0);
    const stopped = await client.chat.completions.create({ model: MODEL, messages, stop: ['<tool_call>'] });
    assert.equal(stopped.choices[0]!.message.content, 'Sure! ');
    assert.equal(stopped.choices[0]!.finish_reason, 'stop');
    assert.deepEqual(await streamed(client, { messages, stop: ['get_weather'] }), { text: 'Sure! <tool_call>{"name": "', finish: 'stop' });
  });
});

describe('--mocker-output echo-last-user', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let client: OpenAI;
  before(async () => {
    server = await serveInProcess(['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000']);
    client = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('each request is answered with its own last user turn, unary and streamed', async () => {
    const last = '<think>\nplan it\n</think>\nThe answer is 42. 答え';
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'an earlier question' },
      { role: 'assistant', content: 'an earlier answer' },
      { role: 'user', content: last },
    ];
    const unary = await client.chat.completions.create({ model: MODEL, messages });
    assert.equal(unary.choices[0]!.message.content, last);
    assert.deepEqual(await streamed(client, { messages }), { text: last, finish: 'stop' });
    const other = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'something else' }], stop: [' else'] });
    assert.equal(other.choices[0]!.message.content, 'something');
  });
});
