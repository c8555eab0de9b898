// ResponseFold: what a stream sends per step (skip rule, first flag, wire finish reason,
// stop_reason), the unary choices, and usage over choices and prompts, alone and behind
// generateChoices with a scripted engine.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateChoices } from '../../../src/pipeline/index.js';
import { ResponseFold, wireFinishReason, type DecodedStep } from '../../../src/pipeline/postprocess/index.js';
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';
import { fakeTable, HI, THERE, DELTA } from './support.js';

function step(index: number, text: string, tokens: number, extra: Partial<DecodedStep> = {}): DecodedStep {
  return {
    index,
    text,
    token_ids: Array.from({ length: tokens }, (_, i) => i + 1),
    tokens: [],
    log_probs: null,
    finish_reason: null,
    engine_finish_reason: null,
    stop_reason: null,
    ...extra,
  };
}

test('cancelled from the engine reads as stop; the other finish reasons pass through', () => {
  assert.equal(wireFinishReason('cancelled'), 'stop');
  assert.equal(wireFinishReason('stop'), 'stop');
  assert.equal(wireFinishReason('length'), 'length');
  assert.equal(wireFinishReason('content_filter'), 'content_filter');
  assert.equal(wireFinishReason(null), null);
  const fold = new ResponseFold({ promptTokens: 1, collectText: true });
  const delta = fold.step(step(0, 'x', 1, { finish_reason: 'cancelled', engine_finish_reason: 'cancelled' }));
  assert.equal(delta?.finishReason, 'stop');
  assert.equal(fold.choices()[0]!.finishReason, 'stop');
});

test('a step with no text and no finish sends nothing; its tokens count in usage and in the next delta', () => {
  const fold = new ResponseFold({ promptTokens: 3, collectText: false });
  assert.equal(fold.step(step(0, '', 2)), null);
  const delta = fold.step(step(0, 'held', 1));
  assert.deepEqual(delta, { index: 0, text: 'held', reasoning: '', tokens: 3, first: true, finishReason: null, stopReason: null });
  const finish = fold.step(step(0, '', 0, { finish_reason: 'stop', stop_reason: 'END' }));
  assert.deepEqual(finish, { index: 0, text: '', reasoning: '', tokens: 0, first: false, finishReason: 'stop', stopReason: 'END' });
  assert.deepEqual(fold.usage(), { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 });
});

test('first is set on the first delta each choice sends, not on a skipped step', () => {
  const fold = new ResponseFold({ promptTokens: 0, collectText: false });
  assert.equal(fold.step(step(1, '', 1)), null);
  assert.equal(fold.step(step(0, 'a', 1))?.first, true);
  assert.equal(fold.step(step(1, 'b', 1))?.first, true);
  assert.equal(fold.step(step(0, 'c', 1))?.first, false);
  assert.equal(fold.step(step(1, 'd', 1))?.first, false);
});

test('unary choices: whole text, finish, stop_reason and output tokens, ordered by index', () => {
  const fold = new ResponseFold({ promptTokens: 4, collectText: true });
  fold.step(step(1, 'x', 1));
  fold.step(step(0, 'he', 1));
  fold.step(step(0, 'llo', 2, { finish_reason: 'stop', stop_reason: 7 }));
  fold.step(step(1, 'y', 1, { finish_reason: 'length', usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 } }));
  assert.deepEqual(fold.choices(), [
    { index: 0, text: 'hello', reasoning: '', finishReason: 'stop', stopReason: 7, outputTokens: 3 },
    { index: 1, text: 'xy', reasoning: '', finishReason: 'length', stopReason: null, outputTokens: 5 },
  ]);
  assert.deepEqual(fold.usage(), { prompt_tokens: 4, completion_tokens: 8, total_tokens: 12 });
});

test('a stream keeps no text', () => {
  const fold = new ResponseFold({ promptTokens: 0, collectText: false });
  fold.step(step(0, 'abc', 1, { finish_reason: 'stop' }));
  assert.equal(fold.choices()[0]!.text, '');
});

test('usage: engine completion_tokens replace the count, cached_tokens is the largest reported', () => {
  const fold = new ResponseFold({ promptTokens: 10, collectText: false });
  const usage = (completion: number, cached?: number) => ({
    prompt_tokens: 5,
    completion_tokens: completion,
    total_tokens: 5 + completion,
    ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
  });
  fold.step(step(0, 'a', 3));
  fold.step(step(0, '', 1, { finish_reason: 'stop', usage: usage(6, 2) }));
  fold.step(step(1, 'b', 1, { finish_reason: 'stop', usage: usage(1, 4) }));
  fold.step(step(2, 'c', 2, { finish_reason: 'length', usage: usage(2) }));
  assert.deepEqual(fold.usage(), { prompt_tokens: 10, completion_tokens: 9, total_tokens: 19, prompt_tokens_details: { cached_tokens: 4 } });
});

/** Every request gets HI THERE DELTA, one id per output, then `length`. */
const scripted: EngineClient = {
  async *generate(): AsyncGenerator<LLMEngineOutput> {
    yield { token_ids: [HI] };
    yield { token_ids: [THERE] };
    yield { token_ids: [DELTA], finish_reason: 'length' };
  },
};

function prompt(tokens: number): { request: PreprocessedRequest; promptTokens: number } {
  return {
    promptTokens: tokens,
    request: {
      model: 'm',
      token_ids: Array.from({ length: tokens }, () => HI),
      stop_conditions: {},
      sampling_options: {},
      output_options: {},
      eos_token_ids: [],
    },
  };
}

test('behind generateChoices: n choices of two prompts fold into one usage and ordered choices', async () => {
  const prompts = [prompt(2), prompt(3)];
  const steps = generateChoices({ target: { engine: scripted, tokenTable: fakeTable }, prompts, n: 2, requestId: 'req', signal: new AbortController().signal });
  const fold = new ResponseFold({ promptTokens: 5, collectText: true });
  const sent: number[] = [];
  for await (const s of steps) {
    const delta = fold.step(s);
    if (delta) sent.push(delta.index);
  }
  assert.deepEqual([...new Set(sent)].sort(), [0, 1, 2, 3]);
  assert.deepEqual(
    fold.choices().map((c) => [c.index, c.text, c.finishReason, c.outputTokens]),
    [0, 1, 2, 3].map((i) => [i, 'hithere delta', 'length', 3]),
  );
  assert.deepEqual(fold.usage(), { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 });
});
