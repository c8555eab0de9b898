// ResponseFold with a tool-call parser after the reasoning parser: calls stream as pieces (the
// first carries id and name, the rest argument fragments that concatenate to the final JSON), the
// unary fold collects whole calls, a stop after a call reads tool_calls, and the parser is chosen
// only when the card names one, the request has tools and tool_choice is not "none".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ResponseFold,
  reasoningFor,
  toolCallsFor,
  type ChoiceDelta,
  type ToolRequest,
} from '../../../src/pipeline/postprocess/index.js';
import { textStep } from './support.js';

const step = textStep;

const WEATHER: ToolRequest = {
  tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
};
// The rendered prompt left <think> open (thinking on), so each reply starts inside the span.
const QWEN3 = reasoningFor('qwen3', { chat_template_args: null }, '<|im_start|>assistant\n<think>\n');
const HERMES = toolCallsFor('hermes', WEATHER);

const OUTPUT = [
  'I should call', ' the tool</think>',
  'Let me check. <tool',
  '_call>{"name": "get_weather", "argu',
  'ments": {"city": "Par',
  'is"}}</tool_call>\n<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>',
  ' Done.',
];

function run(collectText: boolean, finish: 'stop' | 'length' = 'stop'): { fold: ResponseFold; deltas: (ChoiceDelta | null)[] } {
  const fold = new ResponseFold({ promptTokens: 1, collectText, reasoning: QWEN3, toolCalls: HERMES });
  const deltas = OUTPUT.map((t) => fold.step(step(0, t)));
  deltas.push(fold.step(step(0, '', finish)));
  return { fold, deltas };
}

/** Joins a stream's pieces per call index, as a client does. */
function joinCalls(deltas: (ChoiceDelta | null)[]): { id?: string; name?: string; arguments: string }[] {
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  for (const piece of deltas.flatMap((d) => d?.toolCalls ?? [])) {
    const call = (calls[piece.index] ??= { arguments: '' });
    if (piece.id !== undefined) {
      assert.equal(call.id, undefined, 'id only on the first piece');
      call.id = piece.id;
      call.name = piece.name;
    }
    call.arguments += piece.arguments;
  }
  return calls;
}

test('streamed: reasoning, content and call pieces; fragments concatenate to the final arguments', () => {
  const { deltas } = run(false);
  assert.equal(deltas.map((d) => d?.reasoning ?? '').join(''), 'I should call the tool');
  assert.equal(deltas.map((d) => d?.text ?? '').join(''), 'Let me check.  Done.');
  const calls = joinCalls(deltas);
  assert.equal(calls.length, 2);
  assert.deepEqual(calls.map((c) => c.name), ['get_weather', 'get_weather']);
  assert.deepEqual(calls.map((c) => JSON.parse(c.arguments)), [{ city: 'Paris' }, { city: 'Rome' }]);
  assert.match(calls[0]!.id!, /^call-/);
  assert.notEqual(calls[0]!.id, calls[1]!.id);
  // Arguments stream before the call closes: the Paris call has a fragment in the step before its end marker.
  const parisSteps = deltas.map((d) => d?.toolCalls?.some((p) => p.index === 0) ?? false);
  assert.ok(parisSteps.filter(Boolean).length >= 2, 'the first call arrives in more than one step');
  assert.equal(deltas.at(-1)?.finishReason, 'tool_calls');
  assert.deepEqual(deltas.flatMap((d) => d?.toolCallsEnded ?? []), [0, 1], 'each call ends once, in order');
});

test('unary: whole calls collected, content holds only the text around them, same calls as streamed', () => {
  const { fold, deltas } = run(true);
  const [choice] = fold.choices();
  assert.equal(choice!.reasoning, 'I should call the tool');
  assert.equal(choice!.text, 'Let me check.  Done.');
  assert.equal(choice!.finishReason, 'tool_calls');
  const streamed = joinCalls(deltas);
  assert.deepEqual(choice!.toolCalls, streamed.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })));
});

test('a length finish stays length even after a call', () => {
  const { fold } = run(true, 'length');
  assert.equal(fold.choices()[0]!.finishReason, 'length');
});

test('a step holding a partial marker sends nothing; a step with only a call piece is sent', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: false, toolCalls: HERMES });
  assert.equal(fold.step(step(0, '<tool_')), null);
  const start = fold.step(step(0, 'call>{"name": "get_weather", "arguments": {'));
  assert.equal(start?.text, '');
  assert.equal(start?.toolCalls?.[0]?.name, 'get_weather');
});

test('no call: a stop stays stop and the choice has no toolCalls', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: true, toolCalls: HERMES });
  fold.step(step(0, 'just text'));
  const last = fold.step(step(0, '', 'stop'));
  assert.equal(last?.finishReason, 'stop');
  assert.equal(fold.choices()[0]!.toolCalls, undefined);
  assert.equal(fold.choices()[0]!.text, 'just text');
});

test('malformed call JSON is released as content', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: true, toolCalls: HERMES });
  fold.step(step(0, '<tool_call>{not json</tool_call>'));
  fold.step(step(0, '', 'stop'));
  const [choice] = fold.choices();
  assert.equal(choice!.toolCalls, undefined);
  assert.equal(choice!.finishReason, 'stop');
  assert.match(choice!.text, /not json/);
});

test('choices are parsed independently', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: true, toolCalls: HERMES });
  fold.step(step(0, '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>', 'stop'));
  fold.step(step(1, 'plain', 'stop'));
  const [a, b] = fold.choices();
  assert.equal(a!.toolCalls?.length, 1);
  assert.equal(a!.finishReason, 'tool_calls');
  assert.equal(b!.toolCalls, undefined);
  assert.equal(b!.finishReason, 'stop');
});

test('selection: no parser without a card parser, without tools, or with tool_choice none', () => {
  assert.equal(toolCallsFor(null, WEATHER), undefined);
  assert.equal(toolCallsFor('hermes', { tools: [] }), undefined);
  assert.equal(toolCallsFor('hermes', {}), undefined);
  assert.equal(toolCallsFor('hermes', { ...WEATHER, tool_choice: 'none' }), undefined);
  assert.ok(toolCallsFor('hermes', { ...WEATHER, tool_choice: 'auto' }));
});

test('reasoning and tool calls the engine parsed itself pass through unparsed, beside the parsers', () => {
  const fold = new ResponseFold({ promptTokens: 1, collectText: true, toolCalls: HERMES });
  const engineStep = (over: Partial<ReturnType<typeof step>>, finish: 'stop' | null = null) => ({ ...step(0, '', finish), ...over });
  const deltas = [
    fold.step(engineStep({ reasoning: 'Think <tool_call>' })),
    fold.step(engineStep({ text: 'Checking.' })),
    fold.step(engineStep({ toolCalls: [{ index: 0, id: 'e-1', name: 'get_weather', arguments: '' }] })),
    fold.step(engineStep({ toolCalls: [{ index: 0, arguments: '{"city":' }, { index: 0, arguments: ' "Paris"}' }] })),
    fold.step(engineStep({ toolCalls: [{ index: 1, name: 'get_time', arguments: '{}' }] })),
    fold.step(engineStep({}, 'stop')),
  ];
  assert.equal(deltas[0]!.reasoning, 'Think <tool_call>', 'the engine reasoning is not parsed again');
  assert.equal(deltas[1]!.text, 'Checking.');
  assert.deepEqual(deltas[2]!.toolCalls, [{ index: 0, id: 'e-1', name: 'get_weather', arguments: '' }]);
  assert.deepEqual(deltas[3]!.toolCalls, [{ index: 0, arguments: '{"city": "Paris"}' }]);
  assert.equal(deltas[4]!.toolCalls![0]!.name, 'get_time');
  assert.match(deltas[4]!.toolCalls![0]!.id!, /^call-/, 'a call without an id gets one');
  assert.deepEqual(deltas[4]!.toolCallsEnded, [0], 'a call ends when the next starts');
  assert.deepEqual(deltas[5]!.toolCallsEnded, [1]);
  assert.equal(deltas[5]!.finishReason, 'tool_calls');
  const [choice] = fold.choices();
  assert.equal(choice!.reasoning, 'Think <tool_call>');
  assert.equal(choice!.text, 'Checking.');
  assert.deepEqual(choice!.toolCalls?.map((c) => [c.name, c.arguments]), [['get_weather', '{"city": "Paris"}'], ['get_time', '{}']]);
});
