import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOOL_CALL_PARSER_NAMES } from '../../../../../src/protocols/names/parser-names.js';
import { TOOL_CALL_PARSERS } from '../../../../../src/pipeline/postprocess/index.js';

describe('tool-call streaming', () => {
  it('starts a call as soon as its name is complete and streams its arguments as they come', () => {
    let n = 0;
    const parser = TOOL_CALL_PARSERS.hermes!({ tools: [], newCallId: () => `call-${++n}` });
    assert.deepEqual(parser.push('Hi <tool_'), [{ type: 'content', text: 'Hi ' }]);
    assert.deepEqual(parser.push('call>{"name": "get_we'), []);
    assert.deepEqual(parser.push('ather", "arguments": {"city": "Pa'), [
      { type: 'call_start', index: 0, id: 'call-1', name: 'get_weather' },
      { type: 'call_arguments', index: 0, fragment: '{"city": "Pa' },
    ]);
    assert.deepEqual(parser.push('ris"}}'), [
      { type: 'call_arguments', index: 0, fragment: 'ris"}' },
      { type: 'call_end', index: 0 },
    ]);
    assert.deepEqual(parser.push('</tool_call><tool_call>{"name": "now"}'), [
      { type: 'call_start', index: 1, id: 'call-2', name: 'now' },
      { type: 'call_arguments', index: 1, fragment: '{}' },
      { type: 'call_end', index: 1 },
    ]);
    assert.deepEqual(parser.finish(), []);
  });

  it('makes upstream-style ids without a counter', () => {
    const [start] = TOOL_CALL_PARSERS.hermes!({ tools: [] }).push('<tool_call>{"name": "f"');
    assert.ok(start?.type === 'call_start');
    assert.match(start.id, /^call-[0-9a-f-]{36}$/);
  });

  it('registers only known parser names', () => {
    for (const name of Object.keys(TOOL_CALL_PARSERS)) {
      assert.ok((TOOL_CALL_PARSER_NAMES as readonly string[]).includes(name), name);
    }
  });
});
