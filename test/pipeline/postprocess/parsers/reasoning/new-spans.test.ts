// MiniMax-M3 (`<mm:think>`, with the template's hidden opener recovered), Gemma 4 (`<|channel>`
// spans with their `thought` label) and Kimi K3 (XTML think channel): cases after upstream's
// reasoning parsers, in our own data, each asserted however the text is cut.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reasoningFor } from '../../../../../src/pipeline/postprocess/index.js';
import type { ReasoningParserName } from '../../../../../src/protocols/index.js';
import { assertEveryCutting } from '../support.js';

const NS = ']<]minimax[>[';
const CLOSED = '<|im_start|>assistant\n';

function expect(name: ReasoningParserName, prompt: string | undefined, text: string, reasoning: string, content: string): void {
  const make = reasoningFor(name, { chat_template_args: null }, prompt)!;
  assertEveryCutting(make, text, { reasoning, content });
}

test('minimax_m3: the prompt opened the span', () => {
  expect('minimax_m3', `${CLOSED}<mm:think>\n`, 'Plan it.</mm:think>Done.<mm:think>again</mm:think>!', 'Plan it.again', 'Done.!');
});

test('minimax_m3: an end marker with no opener in sight makes what came before reasoning', () => {
  expect('minimax_m3', CLOSED, 'Plan it.</mm:think>Done.', 'Plan it.', 'Done.');
  expect('minimax_m3', undefined, 'Plan it.</mm:think>Done.', 'Plan it.', 'Done.');
});

test('minimax_m3: a tool call straight from the reasoning ends it, with or without the opener in the prompt', () => {
  const call = `${NS}<tool_call>\n${NS}<invoke name="get_weather">`;
  for (const prompt of [CLOSED, `${CLOSED}<mm:think>`]) expect('minimax_m3', prompt, `reasoning${call}`, 'reasoning', call);
});

test('minimax_m3: an opener decides the text before it is answer; no marker at all is answer', () => {
  expect('minimax_m3', CLOSED, 'Sure. <mm:think>hm</mm:think>Yes.</mm:think>', 'hm', 'Sure. Yes.');
  expect('minimax_m3', CLOSED, 'plain ]<]minimal answer', '', 'plain ]<]minimal answer');
  expect('minimax_m3', CLOSED, '<', '', '<');
});

test('minimax_m3: the reply is held until its first marker says what it was', () => {
  const parser = reasoningFor('minimax_m3', { chat_template_args: null }, CLOSED)!();
  assert.deepEqual(parser.push('Thinking about'), { reasoning: '', content: '' });
  assert.deepEqual(parser.push(' it</mm:think>The'), { reasoning: 'Thinking about it', content: 'The' });
  assert.deepEqual(parser.push(' end.'), { reasoning: '', content: ' end.' });
});

test('gemma4: the thought label is markup; spans repeat; no label is fine', () => {
  expect('gemma4', CLOSED, 'Hi. <|channel>thought\nfirst<channel|>mid <|channel>second<channel|>end', 'firstsecond', 'Hi. mid end');
  expect('gemma4', `${CLOSED}<|channel>`, 'no markers', '', 'no markers');
});

test('gemma4: a span that ends inside its label holds no reasoning; one cut off is reasoning', () => {
  expect('gemma4', CLOSED, '<|channel>thou<channel|>answer', '', 'answer');
  expect('gemma4', CLOSED, 'intro <|channel>thought\npartial', 'partial', 'intro ');
  expect('gemma4', CLOSED, '<|channel>thought', '', '');
  expect('gemma4', CLOSED, '<|channel>though it is', 'though it is', '');
});

test('gemma4: a stray end marker is dropped', () => {
  expect('gemma4', CLOSED, 'a<channel|>b', '', 'ab');
});

test('kimi_k3: channel markers end the span and stay for the tool parser', () => {
  const prompt = '<|im_assistant|>assistant<|im_middle|><|open|>think<|sep|>';
  expect('kimi_k3', prompt, 'Look it up.<|open|>tools<|sep|>', 'Look it up.', '<|open|>tools<|sep|>');
  expect('kimi_k3', prompt, 'Done thinking<|end_of_msg|>', 'Done thinking', '<|end_of_msg|>');
  expect('kimi_k3', prompt, 'A.<|close|>think<|sep|><|open|>response<|sep|>B', 'A.', '<|open|>response<|sep|>B');
  expect('kimi_k3', CLOSED, '<|open|>response<|sep|>B', '', '<|open|>response<|sep|>B');
});
