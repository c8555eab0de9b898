// /v1/models says what each model is before a client calls it: the APIs it serves, its input, its
// context length and the output parsers and thinking default its workers' card names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { serveInProcess } from '../support/in-process.js';

test('each model lists its types, input, context length, parsers and thinking default', async () => {
  const ctx = await serveInProcess(['--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3', '--dyn-default-thinking-mode', 'disabled']);
  try {
    const openai = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const [model] = (await openai.models.list()).data as unknown as Record<string, unknown>[];
    assert.deepEqual(
      {
        model_type: model!.model_type,
        model_input: model!.model_input,
        context_length: model!.context_length,
        tool_call_parser: model!.tool_call_parser,
        reasoning_parser: model!.reasoning_parser,
        default_thinking_mode: model!.default_thinking_mode,
      },
      { model_type: ['Chat', 'Completions'], model_input: 'Tokens', context_length: 40960, tool_call_parser: 'hermes', reasoning_parser: 'qwen3', default_thinking_mode: 'disabled' },
    );
    const one = (await openai.models.retrieve('Qwen/Qwen3-0.6B')) as unknown as Record<string, unknown>;
    assert.equal(one.reasoning_parser, 'qwen3');
  } finally {
    await ctx.service.stop();
  }
});
