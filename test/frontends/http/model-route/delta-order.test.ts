import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visitInWrittenOrder } from '../../../../src/frontends/http/model-route/delta-order.js';
import type { ChoiceDelta, ToolCallDelta } from '../../../../src/pipeline/index.js';

function order(delta: Partial<ChoiceDelta>, openCall: number | undefined): string[] {
  const seen: string[] = [];
  const full: ChoiceDelta = { index: 0, text: '', reasoning: '', tokens: 1, first: false, finishReason: null, stopReason: null, ...delta };
  visitInWrittenOrder(full, openCall, {
    reasoning: (text) => seen.push(`reasoning:${text}`),
    text: (text) => seen.push(`text:${text}`),
    call: (piece: ToolCallDelta) => seen.push(`call${piece.index}:${piece.id ?? ''}${piece.arguments}`),
    callEnded: (index) => seen.push(`end${index}`),
  });
  return seen;
}

test('text before a call that starts in the step comes first', () => {
  assert.deepEqual(order({ text: 'Sure.', toolCalls: [{ index: 0, id: 'c', name: 'f', arguments: '{' }] }, undefined), ['text:Sure.', 'call0:c{']);
});

test('the rest of the open call comes before the text after it', () => {
  assert.deepEqual(order({ text: ' Done.', toolCalls: [{ index: 0, arguments: '}' }] }, 0), ['call0:}', 'text: Done.']);
});

test('reasoning first; no text, no calls: nothing else', () => {
  assert.deepEqual(order({ reasoning: 'hmm' }, undefined), ['reasoning:hmm']);
  assert.deepEqual(order({ toolCalls: [{ index: 1, arguments: 'x' }] }, 0), ['call1:x']);
});

test('a call ending in the step ends before the text after it; on the last delta no end is told', () => {
  assert.deepEqual(order({ text: ' ok', toolCalls: [{ index: 0, arguments: '}' }], toolCallsEnded: [0] }, 0), ['call0:}', 'end0', 'text: ok']);
  assert.deepEqual(order({ text: ' ok', toolCallsEnded: [0] }, 0), ['end0', 'text: ok']);
  assert.deepEqual(order({ toolCalls: [{ index: 0, arguments: '}' }], toolCallsEnded: [0], finishReason: 'tool_calls' }, 0), ['call0:}']);
  assert.deepEqual(order({ text: 'a', toolCalls: [{ index: 1, id: 'c', name: 'g', arguments: '{}' }], toolCallsEnded: [1] }, undefined), [
    'text:a',
    'call1:c{}',
    'end1',
  ]);
});
