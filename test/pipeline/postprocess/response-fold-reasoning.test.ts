// ResponseFold with the model's reasoning parser: each choice's text is split into reasoning and
// answer (markers split across steps included), the skip rule counts both, the finishing step
// flushes what the parser still holds, and the request's thinking opt-out leaves all text as answer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseFold, reasoningFor, type DecodedStep } from '../../../src/pipeline/postprocess/index.js';
import { textStep } from './support.js';

const step = (index: number, text: string, finish = false): DecodedStep => textStep(index, text, finish ? 'stop' : null);

// The rendered prompt left <think> open (thinking on), so each reply starts inside the span.
const QWEN3_ON = reasoningFor('qwen3', { chat_template_args: null }, '<|im_start|>assistant\n<think>\n');

test('streamed: reasoning and answer split per step; a marker split across steps is held, not shown', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: false, reasoning: QWEN3_ON });
  const parts = ['let me think', ' hard</th', 'ink>', 'The answer', ' is 4.'].map((t) => fold.step(step(0, t)));
  const last = fold.step(step(0, '', true));
  assert.deepEqual(
    parts.map((d) => d && { reasoning: d.reasoning, text: d.text }),
    [
      { reasoning: 'let me think', text: '' },
      { reasoning: ' hard', text: '' },
      null,
      { reasoning: '', text: 'The answer' },
      { reasoning: '', text: ' is 4.' },
    ],
  );
  assert.equal(parts[0]!.first, true);
  assert.equal(last?.finishReason, 'stop');
});

test('unary: the folded choice has both texts; each choice has its own parser', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: true, reasoning: QWEN3_ON });
  fold.step(step(0, 'a</think>A'));
  fold.step(step(1, 'b'));
  fold.step(step(1, '</think>B', true));
  fold.step(step(0, '', true));
  assert.deepEqual(
    fold.choices().map((c) => ({ reasoning: c.reasoning, text: c.text })),
    [
      { reasoning: 'a', text: 'A' },
      { reasoning: 'b', text: 'B' },
    ],
  );
});

test('the finishing step flushes what the parser still holds', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: true, reasoning: reasoningFor('basic', { chat_template_args: null }) });
  assert.equal(fold.step(step(0, 'Hi <thi'))?.text, 'Hi ');
  const last = fold.step(step(0, '', true));
  assert.equal(last?.text, '<thi');
  assert.equal(fold.choices()[0]!.text, 'Hi <thi');
});

test('thinking turned off by the request: everything is answer text', () => {
  const off = reasoningFor('qwen3', { chat_template_args: { enable_thinking: false } });
  const fold = new ResponseFold({ promptTokens: 1, collectText: true, reasoning: off });
  const delta = fold.step(step(0, 'plain answer', true));
  assert.deepEqual({ reasoning: delta?.reasoning, text: delta?.text }, { reasoning: '', text: 'plain answer' });
});

test('no parser named: no reasoning, the text passes untouched', () => {
  assert.equal(reasoningFor(null, { chat_template_args: null }), undefined);
  const fold = new ResponseFold({ promptTokens: 1, collectText: true });
  const delta = fold.step(step(0, '<think>x</think>y', true));
  assert.deepEqual({ reasoning: delta?.reasoning, text: delta?.text }, { reasoning: '', text: '<think>x</think>y' });
});
