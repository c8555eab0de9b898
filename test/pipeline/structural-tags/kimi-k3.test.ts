// Kimi K3's structural tag: its XTML response and tools channels, typed arguments from the tools'
// schemas (local references inlined), and when it applies.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toolCallTag } from '../../../src/pipeline/structural-tags/index.js';
import { inlineLocalRefs } from '../../../src/pipeline/structural-tags/local-refs.js';
import type { ChatCompletionRequest, ChatTool, StructuralTagPolicy } from '../../../src/protocols/index.js';

const WEATHER: ChatTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } },
};
const RUN: ChatTool = { type: 'function', function: { name: 'run_command', parameters: { type: 'object', properties: { command: { type: 'string' } } } } };
const ALWAYS: StructuralTagPolicy = { scope: 'always', schema: 'auto' };
const CONTEXT = { toolsLeftOutForNone: true, startsInReasoning: false };
type Req = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'response_format'>;
const named = (name: string) => ({ type: 'function' as const, function: { name } });
/** The built tag, read as loose JSON: the assertions walk its nodes by position. */
type Any = any;

function k3(request: Req, policy: StructuralTagPolicy | null = ALWAYS, context = CONTEXT): Any {
  return toolCallTag(request, { toolCall: 'kimi_k3', structuralTag: policy }, context)?.tag.format ?? null;
}

const argument = (key: string, type: string, content: unknown) => ({ type: 'tag', begin: `<|open|>argument key="${key}" type="${type}"<|sep|>`, content, end: '<|close|>argument<|sep|>' });

describe('kimi_k3', () => {
  it('a named call: empty response, a mandatory tools channel with that tool only, its arguments typed', () => {
    const format = k3({ tools: [WEATHER, RUN], tool_choice: named('get_weather') });
    assert.equal(format.type, 'sequence');
    assert.deepEqual(format.elements[0], { type: 'optional', content: { type: 'const_string', value: '<|open|>response<|sep|>' } });
    assert.deepEqual(format.elements[1], { type: 'const_string', value: '' });
    assert.deepEqual(format.elements[4], { type: 'optional', content: { type: 'const_string', value: '<|close|>message<|sep|>' } });
    const channel = format.elements[3];
    assert.equal(channel.type, 'tag');
    assert.equal(channel.begin, '<|open|>tools<|sep|>');
    assert.equal(channel.end, '<|close|>tools<|sep|>');
    assert.equal(channel.content.type, 'tags_with_separator');
    assert.equal(channel.content.at_least_one, true);
    assert.equal(channel.content.tags.length, 1);
    const call = channel.content.tags[0];
    assert.equal(call.begin, '<|open|>call tool="get_weather" index="');
    assert.equal(call.end, '<|close|>call<|sep|>');
    assert.deepEqual(call.content.elements.slice(0, 2), [{ type: 'regex', pattern: '[0-9]+' }, { type: 'const_string', value: '"<|sep|>' }]);
    assert.deepEqual(call.content.elements[2], {
      type: 'star',
      content: {
        type: 'or',
        elements: [
          argument('city', 'string', { type: 'any_text', excludes: ['<|close|>'] }),
          argument('days', 'number', { type: 'json_schema', json_schema: { type: 'integer' }, style: 'json' }),
        ],
      },
    });
    assert.ok(!JSON.stringify(format).includes('run_command'));
  });

  it('auto keeps text and makes the tools channel optional; required makes it mandatory; parallel_tool_calls false stops after one call', () => {
    const auto = k3({ tools: [WEATHER, RUN] });
    assert.deepEqual(auto.elements[1], { type: 'any_text', excludes: ['<|open|>', '<|close|>'] });
    assert.equal(auto.elements[3].type, 'optional');
    assert.equal(auto.elements[3].content.content.tags.length, 2);
    const required = k3({ tools: [WEATHER, RUN], tool_choice: 'required', parallel_tool_calls: false });
    assert.equal(required.elements[3].type, 'tag');
    assert.equal(required.elements[3].content.stop_after_first, true);
  });

  it('string arguments: enum values, bounded lengths; strict: false or no properties: any arguments', () => {
    const tool: ChatTool = {
      type: 'function',
      function: { name: 'pick', parameters: { type: 'object', properties: { unit: { type: 'string', enum: ['c', 'f'] }, code: { type: 'string', minLength: 2, maxLength: 8 }, q: { const: 1 } } } },
    };
    const args = k3({ tools: [tool], tool_choice: 'required' }).elements[3].content.tags[0].content.elements[2].content.elements;
    assert.deepEqual(args[0].content, { type: 'or', elements: [{ type: 'const_string', value: 'c' }, { type: 'const_string', value: 'f' }] });
    assert.deepEqual(args[1].content, { type: 'regex', pattern: '(?:[^<]|<[^|]){2,8}' });
    assert.equal(args[2].begin, '<|open|>argument ', 'no type: any argument');
    const loose: ChatTool = { type: 'function', function: { ...WEATHER.function, strict: false } };
    const block = k3({ tools: [loose], tool_choice: named('get_weather') }).elements[3].content.tags[0].content.elements[2];
    assert.equal(block.type, 'star');
    assert.equal(block.content.begin, '<|open|>argument ');
    assert.deepEqual(block.content.content.elements[0], { type: 'regex', pattern: '[^<]*<\\|sep\\|>' });
    assert.ok(!JSON.stringify(block).includes('key=\\"city\\"'));
  });

  it('structural tags off: a named call still gets its tag (upstream); required and auto do not', () => {
    assert.ok(k3({ tools: [WEATHER], tool_choice: named('get_weather') }, null));
    assert.equal(k3({ tools: [WEATHER], tool_choice: 'required' }, null), null);
    assert.equal(k3({ tools: [WEATHER] }, null), null);
  });

  it("a forced call after a reasoning span the prompt opened lets the reasoning close with K3's marker first", () => {
    const format = k3({ tools: [WEATHER], tool_choice: 'required' }, ALWAYS, { ...CONTEXT, startsInReasoning: true });
    assert.deepEqual(format.elements[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: [] }, end: '<|close|>think<|sep|>' });
  });

  it('local references are inlined; ones that would change scope or lose constraints are not', () => {
    const root = {
      $defs: { Schema: { type: 'object', properties: { input: { type: 'string' } }, additionalProperties: false }, 'Foo Bar': { type: 'integer' }, Cycle: { $ref: '#/$defs/Cycle' } },
      properties: { data: { $ref: '#/$defs/Schema' }, n: { $ref: '#/$defs/Foo%20Bar' }, literal: { const: { $ref: 'data' } } },
    };
    assert.deepEqual(inlineLocalRefs(root, root.properties.data), root.$defs.Schema);
    assert.deepEqual(inlineLocalRefs(root, root.properties.n), { type: 'integer' });
    assert.deepEqual(inlineLocalRefs(root, root.properties.literal), { const: { $ref: 'data' } }, 'a const is data');
    for (const schema of [{ $ref: '#/$defs/Cycle' }, { $ref: '#/$defs/Missing' }, { $ref: 'https://example.test/s' }, { $ref: '#/$defs/Schema', enum: ['x'] }, { $id: 'x', type: 'object' }]) {
      assert.equal(inlineLocalRefs(root, schema), null, JSON.stringify(schema));
    }
    const tool: ChatTool = { type: 'function', function: { name: 'f', parameters: { type: 'object', ...root } } };
    const args = k3({ tools: [tool], tool_choice: 'required' }).elements[3].content.tags[0].content.elements[2].content.elements;
    assert.deepEqual(args[0], argument('data', 'object', { type: 'json_schema', json_schema: root.$defs.Schema, style: 'json' }));
  });
});
