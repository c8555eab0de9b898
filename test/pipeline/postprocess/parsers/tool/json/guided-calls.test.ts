// The parsers of guided tool_choice output: `required` writes a JSON array of {name, parameters},
// a named function writes its arguments object. Every cutting of the text gives the same calls;
// output that is not the guided JSON is content. Also toolCallsFor's choice of them and
// parallel_tool_calls: false.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toolCallsFor, type ToolCallParserFactory } from '../../../../../../src/pipeline/postprocess/index.js';
import { namedToolCallParser, requiredToolCallParser } from '../../../../../../src/pipeline/postprocess/parsers/tool/json/guided-calls.js';
import { assertToolParse, call, run } from '../support.js';

const tools = [
  { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } },
  { type: 'function' as const, function: { name: 'get_time' } },
];

describe('tool_choice required', () => {
  it('an array of calls, as the guided schema makes the engine write it', () => {
    assertToolParse(requiredToolCallParser, '[{"name": "get_weather", "parameters": {"city": "Oslo"}}, {"name": "get_time", "parameters": {}}]', [
      call(1, 'get_weather', '{"city": "Oslo"}'),
      call(2, 'get_time', '{}'),
    ]);
  });

  it('text that is not the array is content', () => {
    assertToolParse(requiredToolCallParser, 'no calls today', [{ content: 'no calls today' }]);
  });
});

describe('a named tool_choice', () => {
  const named = namedToolCallParser('get_weather');

  it('the arguments object is one call of that function, streamed as written', () => {
    assertToolParse(named, ' {"city": "Lima", "days": [1, 2]}', [{ content: ' ' }, call(1, 'get_weather', '{"city": "Lima", "days": [1, 2]}')]);
  });

  it('an array or plain text is content', () => {
    assertToolParse(named, '[1, 2]', [{ content: '[1, 2]' }]);
    assertToolParse(named, 'sorry', [{ content: 'sorry' }]);
  });

  it('a cut-off object closes the call with what was written', () => {
    assert.deepEqual(run(named, ['{"city": "Li']), [call(1, 'get_weather', '{"city": "Li')]);
  });
});

describe('toolCallsFor', () => {
  const parse = (factory: (() => ReturnType<ToolCallParserFactory>) | undefined, text: string) => {
    assert.ok(factory);
    const parser = factory();
    return [...parser.push(text), ...parser.finish()].filter((item) => item.type === 'call_start').map((item) => item.type === 'call_start' && item.name);
  };

  it('required and named get the guided parsers with or without a card parser', () => {
    assert.deepEqual(parse(toolCallsFor(null, { tools, tool_choice: 'required' }), '[{"name": "get_time", "parameters": {}}]'), ['get_time']);
    assert.deepEqual(parse(toolCallsFor('hermes', { tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }), '{}'), ['get_weather']);
  });

  it('parallel_tool_calls false keeps the first call only, content around calls stays', () => {
    const factory = toolCallsFor('hermes', { tools, parallel_tool_calls: false });
    assert.ok(factory);
    const parser = factory();
    const items = [
      ...parser.push('a <tool_call>{"name": "get_time", "arguments": {}}</tool_call> b <tool_call>{"name": "get_weather", "arguments": {}}</tool_call> c'),
      ...parser.finish(),
    ];
    assert.deepEqual(items.filter((i) => i.type === 'call_start').map((i) => i.type === 'call_start' && i.name), ['get_time']);
    assert.ok(items.every((i) => i.type === 'content' || i.index === 0));
    assert.equal(items.map((i) => (i.type === 'content' ? i.text : '')).join(''), 'a  b  c');
  });
});
