// kimi_k2, deepseek_v3, deepseek_v3_1 and harmony: the arguments JSON streams as written.
// Cases after upstream's lib/parsers/src/tool_calling (test_cases/fixtures, xml/kimi_k2_parser.rs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deepseekV31ToolCallParser,
  deepseekV3ToolCallParser,
  harmonyToolCallParser,
  kimiK2ToolCallParser,
} from '../../../../../../src/pipeline/postprocess/parsers/tool/markup/json-calls.js';
import { REASONING_PARSERS } from '../../../../../../src/pipeline/postprocess/index.js';
import { cuttings, pushAll } from '../../support.js';
import { assertToolParse, call, counted, run, type Seen } from '../support.js';

const ARGS = '{"location": "Paris, France", "unit": "celsius", "days": [1, 2]}';

test('kimi_k2: one call in a section, text around it', () => {
  const text =
    'Let me look.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0' +
    `<|tool_call_argument_begin|>${ARGS}<|tool_call_end|><|tool_calls_section_end|>Here it is.`;
  assertToolParse(kimiK2ToolCallParser, text, [{ content: 'Let me look.' }, call(1, 'get_weather', ARGS), { content: 'Here it is.' }]);
});

test('kimi_k2: several calls, layout between them, singular section markers', () => {
  const text =
    '<|tool_call_section_begin|>\n<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{"x": 1}<|tool_call_end|>\n' +
    '<|tool_call_begin|>functions.b:1<|tool_call_argument_begin|> {}\n<|tool_call_end|>\n<|tool_call_section_end|>';
  assertToolParse(kimiK2ToolCallParser, text, [call(1, 'a', '{"x": 1}'), call(2, 'b', '{}')]);
});

test('kimi_k2: a missing section end still gives the call (upstream PR #8208)', () => {
  const text = `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>${ARGS}<|tool_call_end|>`;
  assertToolParse(kimiK2ToolCallParser, text, [call(1, 'f', ARGS)]);
});

test('kimi_k2: arguments stream as they are checked, the call ends with the object', () => {
  const parser = counted(kimiK2ToolCallParser);
  assert.deepEqual(parser.push('<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>'), []);
  assert.deepEqual(parser.push('{"a": '), [
    { type: 'call_start', index: 0, id: 'call-1', name: 'f' },
    { type: 'call_arguments', index: 0, fragment: '{"a": ' },
  ]);
  assert.deepEqual(parser.push('"b c"}\n<|tool_call'), [
    { type: 'call_arguments', index: 0, fragment: '"b c"}' },
    { type: 'call_end', index: 0 },
  ]);
  assert.deepEqual(parser.push('_end|>'), []);
  assert.deepEqual(parser.finish(), []);
});

test('kimi_k2: arguments that are not an object are no call', () => {
  const text = '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>oops<|tool_call_end|>';
  assertToolParse(kimiK2ToolCallParser, text, [{ content: text }]);
});

test('deepseek_v3: fenced JSON after the type and name', () => {
  const text =
    'Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n' +
    `${ARGS}\n\`\`\`<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n\`\`\`json\n{}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜> ok`;
  assertToolParse(deepseekV3ToolCallParser, text, [{ content: 'Sure.' }, call(1, 'get_weather', ARGS), call(2, 'now', '{}'), { content: ' ok' }]);
});

test('deepseek_v3: a JSON string holding backticks streams whole', () => {
  const args = '{"code": "use `x`"}';
  const text = `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>run\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
  assertToolParse(deepseekV3ToolCallParser, text, [call(1, 'run', args)]);
});

test('deepseek_v3_1: name, separator, JSON', () => {
  const text =
    'Hi <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>' +
    `${ARGS}<｜tool▁call▁end｜><｜tool▁call▁begin｜>now<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
  assertToolParse(deepseekV31ToolCallParser, text, [{ content: 'Hi ' }, call(1, 'get_weather', ARGS), call(2, 'now', '{}')]);
});

test('deepseek_v3_1: a missing section end still gives the call', () => {
  const text = `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>${ARGS}<｜tool▁call▁end｜>`;
  assertToolParse(deepseekV31ToolCallParser, text, [call(1, 'f', ARGS)]);
});

test('deepseek_v3_1: markers in plain text that start no call are content', () => {
  assertToolParse(deepseekV31ToolCallParser, 'a <｜tool▁calls▁begin｜> b', [{ content: 'a <｜tool▁calls▁begin｜> b' }]);
});

test('harmony: commentary to a function, constrained to JSON', () => {
  const text =
    `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${ARGS}<|call|>` +
    '<|channel|>commentary to=functions.now<|message|>{}<|call|>';
  assertToolParse(harmonyToolCallParser, text, [call(1, 'get_weather', ARGS), call(2, 'now', '{}')]);
});

test('harmony: whole messages as the reasoning stage passes them, the recipient before or after the channel', () => {
  const text =
    `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${ARGS}<|call|>` +
    '<|start|>assistant to=functions.now<|channel|>commentary json<|message|>{}<|call|>';
  assertToolParse(harmonyToolCallParser, text, [call(1, 'get_weather', ARGS), call(2, 'now', '{}')]);
});

test('harmony: text before, a call cut off at the end of the stream is closed', () => {
  const text = 'Checking. <|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}';
  assertToolParse(harmonyToolCallParser, text, [{ content: 'Checking. ' }, call(1, 'f', '{"a": 1}')]);
});

test('kimi_k2: arguments broken by the end marker end the call with what was valid', () => {
  const text =
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1<|tool_call_end|>' +
    '<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{"b": tru]<|tool_call_end|><|tool_calls_section_end|>after';
  assertToolParse(kimiK2ToolCallParser, text, [call(1, 'f', '{"a": 1'), call(2, 'g', '{"b": tru'), { content: 'after' }]);
});

test('harmony: a name that never ends is content', () => {
  const text = '<|channel|>commentary to=functions.f';
  assertToolParse(harmonyToolCallParser, text, [{ content: text }]);
});

/** gpt-oss output through the gpt_oss reasoning stage and then the harmony tool parser, cut every way. */
function assertHarmonyChain(text: string, reasoning: string, expected: Seen): void {
  for (const { name, pieces } of cuttings(text)) {
    const splits = pushAll(REASONING_PARSERS.gpt_oss.parser({ startsInside: false }), pieces);
    const label = `${name}: ${JSON.stringify(pieces)}`;
    assert.equal(splits.map((split) => split.reasoning).join(''), reasoning, label);
    assert.deepEqual(run(harmonyToolCallParser, splits.map((split) => split.content)), expected, label);
  }
}

test('harmony: a commentary preamble before a call is content, its markup dropped', () => {
  const text =
    '<|channel|>analysis<|message|>Need the weather.<|end|>' +
    '<|start|>assistant<|channel|>commentary<|message|>Let me check the weather.<|end|>' +
    `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${ARGS}<|call|>`;
  assertHarmonyChain(text, 'Need the weather.', [{ content: 'Let me check the weather.' }, call(1, 'get_weather', ARGS)]);
});

test('harmony: a preamble, the recipient before the channel, then the final answer set apart by a newline', () => {
  const text =
    '<|channel|>commentary<|message|>Checking now.<|end|>' +
    '<|start|>assistant to=functions.now<|channel|>commentary <|constrain|>json<|message|>{}<|call|>';
  assertHarmonyChain(text, '', [{ content: 'Checking now.' }, call(1, 'now', '{}')]);
  const answer = '<|channel|>commentary<|message|>Checking now.<|end|><|start|>assistant<|channel|>final<|message|>It is 18C.';
  assertHarmonyChain(answer, '', [{ content: 'Checking now.\nIt is 18C.' }]);
});
