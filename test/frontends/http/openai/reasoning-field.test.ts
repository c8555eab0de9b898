// DYN_REASONING_FIELD_NAME: chat names the reasoning text `reasoning_content` (the default) or
// `reasoning`, in stream chunks and in the unary message alike; a choice without reasoning has no
// such field at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkSerializer, foldedResponse } from '../../../../src/frontends/http/openai/openai-chunks.js';
import type { ChoiceDelta, FoldedChoice } from '../../../../src/pipeline/index.js';

const delta = (text: string, reasoning: string): ChoiceDelta => ({ index: 0, text, reasoning, tokens: 1, first: false, finishReason: null, stopReason: null });
const choice = (text: string, reasoning: string): FoldedChoice => ({ index: 0, text, reasoning, finishReason: 'stop', stopReason: null, outputTokens: 2 });

test('stream chunks carry the reasoning under the configured name, before the content', () => {
  for (const field of ['reasoning_content', 'reasoning'] as const) {
    const chunk = JSON.parse(new ChunkSerializer('chat', 'c', 1, 'm', field).choice(delta('A', 'r'))) as { choices: { delta: Record<string, string> }[] };
    assert.deepEqual(chunk.choices[0]!.delta, { [field]: 'r', content: 'A' });
  }
  const plain = JSON.parse(new ChunkSerializer('chat', 'c', 1, 'm').choice(delta('A', ''))) as { choices: { delta: Record<string, string> }[] };
  assert.deepEqual(plain.choices[0]!.delta, { content: 'A' });
});

test('the unary message carries it under the configured name, and only when there is reasoning', () => {
  const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
  const named = foldedResponse('chat', 'c', 1, 'm', [choice('A', 'r')], usage, 'reasoning') as { choices: { message: unknown }[] };
  assert.deepEqual(named.choices[0]!.message, { role: 'assistant', content: 'A', reasoning: 'r' });
  const none = foldedResponse('chat', 'c', 1, 'm', [choice('A', '')], usage) as { choices: { message: unknown }[] };
  assert.deepEqual(none.choices[0]!.message, { role: 'assistant', content: 'A' });
});
