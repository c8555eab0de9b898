// The parsers-v2 forms per family, as upstream's parsers-v2 builders shape them: the calls alone
// beside a response schema (`allow_tool_calls_with_structured_output`), the reasoning span ahead
// of it (and Qwen3-Coder's blank line after it), and the marker lists `exclude_special_tokens`
// keeps out of the free text and of the reasoning. Families upstream builds only with its v1
// builders get none of them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toolCallTag, type TagContext } from '../../../src/pipeline/structural-tags/index.js';
import type { ChatCompletionRequest, ChatTool, StructuralTagOptions, StructuralTagPolicy, ToolCallParserName } from '../../../src/protocols/index.js';

const LOOKUP = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
const VERDICT = { type: 'object', properties: { verdict: { type: 'boolean' } }, required: ['verdict'] };
const TOOLS: ChatTool[] = [
  { type: 'function', function: { name: 'lookup', parameters: LOOKUP } },
  { type: 'function', function: { name: 'tally', parameters: LOOKUP, strict: false } },
];
const ALWAYS: StructuralTagPolicy = { scope: 'always', schema: 'auto' };
const BASE: StructuralTagOptions = { toolArgumentsAnyOrder: false, reasoningBoundary: 'auto' };
const COMBINED: StructuralTagOptions = { ...BASE, toolCallsWithStructuredOutput: true };
const EXCLUDE: StructuralTagOptions = { ...BASE, excludeSpecialTokens: true };
const PLAIN: TagContext = { toolsLeftOutForNone: true, startsInReasoning: false };
const THINKING: TagContext = { toolsLeftOutForNone: true, startsInReasoning: true };

type Fields = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'response_format'>;
const AUTO_WITH_SCHEMA: Fields = { tools: TOOLS, response_format: { type: 'json_schema', json_schema: { name: 'verdict', schema: VERDICT } } };

function format(parser: ToolCallParserName, request: Fields, options: StructuralTagOptions, context = PLAIN) {
  const got = toolCallTag(request, { toolCall: parser, structuralTag: ALWAYS, structuralTagOptions: options }, context);
  assert.ok(got, `${parser}: a tag`);
  assert.equal(got.native, true);
  return got.tag.format as Record<string, unknown>;
}

const answer = { type: 'json_schema', json_schema: VERDICT, style: 'json' };
const qwenCall = (name: string, schema: unknown) => ({ type: 'tag', begin: `<tool_call>\n<function=${name}>\n`, content: { type: 'json_schema', json_schema: schema, style: 'qwen_xml' }, end: '\n</function>\n</tool_call>' });
const invoke = (name: string, schema: unknown) => ({ type: 'tag', begin: `<｜DSML｜invoke name="${name}">\n`, content: { type: 'json_schema', json_schema: schema, style: 'deepseek_xml' }, end: '</｜DSML｜invoke>\n' });
const k2Call = (name: string, schema: unknown) => ({
  type: 'tag',
  begin: `<|tool_call_begin|>functions.${name}:`,
  content: { type: 'sequence', elements: [{ type: 'regex', pattern: '\\d+' }, { type: 'const_string', value: '<|tool_call_argument_begin|>' }, { type: 'json_schema', json_schema: schema, style: 'json' }] },
  end: '<|tool_call_end|>',
});
const glmCall = (name: string, schema: unknown) => ({ type: 'tag', begin: `<tool_call>${name}`, content: { type: 'json_schema', json_schema: schema, style: 'glm_xml' }, end: '</tool_call>' });
const GLM_TEXT = ['<think>', '</think>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>'];
const GLM_CALL_MARKERS = ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>'];
const sequenceOf = (tags: unknown[], separator: string, stopAfterFirst = false) => ({ type: 'tags_with_separator', tags, separator, at_least_one: true, stop_after_first: stopAfterFirst });

/**
 * Each parsers-v2 family: its calls-only form, its reasoning end and suffix, its two marker lists,
 * and what its own tag keeps out without them (`plainText`, `plainReasoning`).
 */
const FAMILIES = [
  {
    parsers: ['qwen3_coder'],
    callsOnly: sequenceOf([qwenCall('lookup', LOOKUP), qwenCall('tally', true)], '\n'),
    reasoningEnd: '</think>',
    suffix: '\n\n',
    text: ['<think>', '</think>', '<function='],
    reasoning: ['<tool_call>', '<function='],
    plainText: undefined,
    plainReasoning: [],
  },
  {
    parsers: ['deepseek_v4', 'deepseek-v4', 'deepseekv4'],
    callsOnly: { type: 'tag', begin: '\n\n<｜DSML｜tool_calls>\n', content: sequenceOf([invoke('lookup', LOOKUP), invoke('tally', true)], ''), end: '</｜DSML｜tool_calls>' },
    reasoningEnd: '</think>',
    suffix: '',
    text: ['<think>', '</think>'],
    reasoning: ['<｜DSML｜'],
    plainText: undefined,
    plainReasoning: [],
  },
  {
    parsers: ['glm47'],
    callsOnly: sequenceOf([glmCall('lookup', LOOKUP), glmCall('tally', true)], ''),
    reasoningEnd: '</think>',
    suffix: '',
    text: GLM_TEXT,
    reasoning: GLM_CALL_MARKERS,
    plainText: GLM_TEXT,
    plainReasoning: ['<think>', '</think>', ...GLM_CALL_MARKERS],
  },
  {
    parsers: ['kimi_k2'],
    callsOnly: { type: 'tag', begin: '<|tool_calls_section_begin|>', content: sequenceOf([k2Call('lookup', LOOKUP), k2Call('tally', true)], ''), end: '<|tool_calls_section_end|>' },
    reasoningEnd: '</think>',
    suffix: '',
    text: ['<think>', '</think>', '<|tool_calls_section_end|>', '<|tool_call_end|>', '<|tool_call_begin|>functions.', '<|tool_call_argument_begin|>'],
    reasoning: ['<|tool_calls_section_begin|>', '<|tool_call_begin|>functions.'],
    plainText: undefined,
    plainReasoning: [],
  },
] as const;

describe('parsers-v2 families: the calls alone or the answer', () => {
  for (const family of FAMILIES) {
    for (const parser of family.parsers) {
      it(`${parser}: an or of its calls-only form and the response schema`, () => {
        assert.deepEqual(format(parser, AUTO_WITH_SCHEMA, COMBINED), { type: 'or', elements: [family.callsOnly, answer] });
      });

      it(`${parser}: in a reasoning span the prompt opened, the span ends first; the backend boundary leaves it out`, () => {
        const reasoning = { type: 'tag', begin: '', content: { type: 'any_text', excludes: family.plainReasoning }, end: family.reasoningEnd };
        const between = family.suffix === '' ? [] : [{ type: 'const_string', value: family.suffix }];
        const either = { type: 'or', elements: [family.callsOnly, answer] };
        assert.deepEqual(format(parser, AUTO_WITH_SCHEMA, COMBINED, THINKING), { type: 'sequence', elements: [reasoning, ...between, either] });
        assert.deepEqual(format(parser, AUTO_WITH_SCHEMA, { ...COMBINED, reasoningBoundary: 'backend' }, THINKING), either);
      });
    }
  }

  it('one call only stops the calls-only form after its first call; any order touches the calls, not the answer', () => {
    for (const family of FAMILIES) {
      const parser = family.parsers[0];
      const got = format(parser, { ...AUTO_WITH_SCHEMA, parallel_tool_calls: false }, { ...COMBINED, toolArgumentsAnyOrder: true });
      const [calls, response] = got.elements as Record<string, unknown>[];
      assert.match(JSON.stringify(calls), /"stop_after_first":true/, parser);
      assert.doesNotMatch(JSON.stringify(calls), /"stop_after_first":false/, parser);
      assert.equal(JSON.stringify(calls).match(/"any_order":true/g)?.length, 2, parser);
      assert.deepEqual(response, answer, parser);
    }
  });

  it('kimi_k3: the calls alone in the tools channel after an empty response channel, or the answer in the response channel', () => {
    const got = format('kimi_k3', AUTO_WITH_SCHEMA, COMBINED);
    const [calls, response] = got.elements as Record<string, unknown>[];
    const responseOpen = { type: 'optional', content: { type: 'const_string', value: '<|open|>response<|sep|>' } };
    const messageClose = { type: 'optional', content: { type: 'const_string', value: '<|close|>message<|sep|>' } };
    assert.deepEqual(response, {
      type: 'sequence',
      elements: [responseOpen, { type: 'tag', begin: '', content: answer, end: '<|close|>response<|sep|>' }, messageClose],
    });
    const elements = (calls as { type: string; elements: Record<string, unknown>[] }).elements;
    assert.equal(calls!.type, 'sequence');
    assert.deepEqual(elements[0], responseOpen);
    assert.deepEqual(elements[1], { type: 'tag', begin: '', content: { type: 'const_string', value: '' }, end: '<|close|>response<|sep|>' });
    assert.equal(elements[2]!.begin, '<|open|>tools<|sep|>');
    const inner = elements[2]!.content as Record<string, unknown>;
    assert.deepEqual([inner.type, inner.at_least_one, (inner.tags as unknown[]).length], ['tags_with_separator', true, 2]);
    assert.deepEqual(elements[3], messageClose);
    const thinking = format('kimi_k3', AUTO_WITH_SCHEMA, COMBINED, THINKING);
    assert.deepEqual((thinking.elements as Record<string, unknown>[])[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: [] }, end: '<|close|>think<|sep|>' });
    assert.equal((thinking.elements as Record<string, unknown>[])[1]!.type, 'or');
  });
});

describe('parsers-v2 families: exclude_special_tokens', () => {
  for (const family of FAMILIES) {
    for (const parser of family.parsers) {
      it(`${parser}: the free text around automatic calls keeps the family's markers out`, () => {
        const got = format(parser, { tools: TOOLS }, EXCLUDE);
        assert.equal(got.type, 'triggered_tags');
        assert.deepEqual(got.excludes, family.text);
        assert.deepEqual(format(parser, { tools: TOOLS }, BASE).excludes, family.plainText, 'unset: as before');
      });

      it(`${parser}: a reasoning span ahead of a forced call keeps the call openings out`, () => {
        const got = format(parser, { tools: TOOLS, tool_choice: 'required' }, EXCLUDE, THINKING);
        assert.deepEqual((got.elements as unknown[])[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: family.reasoning }, end: family.reasoningEnd });
      });

      it(`${parser}: and so does the one ahead of the calls or the answer`, () => {
        const got = format(parser, AUTO_WITH_SCHEMA, { ...COMBINED, excludeSpecialTokens: true }, THINKING);
        assert.deepEqual((got.elements as unknown[])[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: family.reasoning }, end: family.reasoningEnd });
      });
    }
  }

  it('kimi_k3: the response text of an automatic or required choice keeps the tools, call and reasoning markers out; the reasoning the openings', () => {
    const text = ['<|open|>tools<|sep|>', '<|open|>call ', '<|open|>think<|sep|>', '<|close|>think<|sep|>'];
    for (const tool_choice of ['auto', 'required'] as const) {
      const got = format('kimi_k3', { tools: TOOLS, tool_choice }, EXCLUDE);
      assert.deepEqual((got.elements as unknown[])[1], { type: 'any_text', excludes: text }, tool_choice);
      const plain = format('kimi_k3', { tools: TOOLS, tool_choice }, BASE);
      assert.deepEqual((plain.elements as unknown[])[1], { type: 'any_text', excludes: ['<|open|>', '<|close|>'] }, `${tool_choice}, unset: as before`);
    }
    const forced = format('kimi_k3', { tools: TOOLS, tool_choice: 'required' }, EXCLUDE, THINKING);
    assert.deepEqual((forced.elements as unknown[])[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: ['<|open|>tools<|sep|>', '<|open|>call '] }, end: '<|close|>think<|sep|>' });
  });

  it('false: each family as unset', () => {
    for (const parser of ['qwen3_coder', 'deepseek_v4', 'glm47', 'kimi_k2', 'kimi_k3'] as const) {
      for (const request of [{ tools: TOOLS }, { tools: TOOLS, tool_choice: 'required' as const }]) {
        assert.deepEqual(format(parser, request, { ...BASE, excludeSpecialTokens: false }, THINKING), format(parser, request, BASE, THINKING), parser);
      }
    }
  });
});

describe('families upstream builds only with its v1 builders', () => {
  it('nemotron_nano: Qwen3-Coder\'s tag, without its parsers-v2 forms', () => {
    for (const request of [{ tools: TOOLS }, { tools: TOOLS, tool_choice: 'required' as const }]) {
      assert.deepEqual(format('nemotron_nano', request, BASE, THINKING), format('qwen3_coder', request, BASE, THINKING));
      assert.deepEqual(format('nemotron_nano', request, EXCLUDE, THINKING), format('qwen3_coder', request, BASE, THINKING));
    }
  });

  it('hermes, qwen25, nemotron_nano, deepseek_v3_2: a response format keeps the request untagged; the markers stay as before', () => {
    for (const parser of ['hermes', 'qwen25', 'nemotron_nano', 'deepseek_v3_2'] as const) {
      assert.equal(toolCallTag(AUTO_WITH_SCHEMA, { toolCall: parser, structuralTag: ALWAYS, structuralTagOptions: COMBINED }, PLAIN), null, parser);
      assert.deepEqual(format(parser, { tools: TOOLS }, EXCLUDE), format(parser, { tools: TOOLS }, BASE), parser);
    }
  });
});

describe('glm47', () => {
  it('its own tag: calls after <tool_call> in free text without the other markers; a named call alone; none bans every call marker', () => {
    assert.deepEqual(format('glm47', { tools: TOOLS, parallel_tool_calls: false }, BASE), {
      type: 'triggered_tags',
      triggers: ['<tool_call>'],
      tags: [glmCall('lookup', LOOKUP), glmCall('tally', true)],
      excludes: GLM_TEXT,
      at_least_one: false,
      stop_after_first: true,
    });
    assert.equal(format('glm47', { tools: TOOLS, tool_choice: 'required' }, BASE).at_least_one, true);
    assert.deepEqual(format('glm47', { tools: TOOLS, tool_choice: { type: 'function', function: { name: 'tally' } } }, BASE), glmCall('tally', true));
    const none = toolCallTag({ tools: TOOLS, tool_choice: 'none' }, { toolCall: 'glm47', structuralTag: ALWAYS }, { toolsLeftOutForNone: false, startsInReasoning: false });
    assert.deepEqual(none, { native: false, tag: { type: 'structural_tag', format: { type: 'tag', begin: '', content: { type: 'any_tokens', exclude_tokens: GLM_CALL_MARKERS }, end: '' } } });
  });

  it('a reasoning span the prompt opened ends first whatever the tool choice (its free text bans </think>); the backend boundary leaves it out', () => {
    const reasoning = { type: 'tag', begin: '', content: { type: 'any_text', excludes: ['<think>', '</think>', ...GLM_CALL_MARKERS] }, end: '</think>' };
    const choices: Fields['tool_choice'][] = ['auto', 'required', { type: 'function', function: { name: 'lookup' } }];
    for (const tool_choice of choices) {
      const got = format('glm47', { tools: TOOLS, tool_choice }, BASE, THINKING);
      assert.deepEqual((got.elements as unknown[])[0], reasoning);
      assert.deepEqual((got.elements as unknown[])[1], format('glm47', { tools: TOOLS, tool_choice }, BASE));
      assert.deepEqual(format('glm47', { tools: TOOLS, tool_choice }, { ...BASE, reasoningBoundary: 'backend' }, THINKING), format('glm47', { tools: TOOLS, tool_choice }, BASE));
    }
  });

  it('a property that is a local $ref with annotations is inlined; a constraint beside a $ref the target does not state leaves the request untagged', () => {
    const defs = { Mode: { type: 'string', enum: ['fast', 'slow'] }, Limit: { type: 'integer', maximum: 10 } };
    const inlined = { type: 'object', $defs: defs, properties: { mode: { $ref: '#/$defs/Mode', description: 'how' }, limit: { $ref: '#/$defs/Limit', maximum: 10 } } };
    const tools: ChatTool[] = [{ type: 'function', function: { name: 'tune', parameters: inlined } }];
    const got = format('glm47', { tools, tool_choice: 'required' }, BASE);
    const schema = ((got.tags as Record<string, unknown>[])[0]!.content as { json_schema: { properties: unknown } }).json_schema;
    assert.deepEqual(schema.properties, { mode: { type: 'string', enum: ['fast', 'slow'], description: 'how' }, limit: { $ref: '#/$defs/Limit', maximum: 10 } });
    for (const loose of [{ $ref: '#/$defs/Limit', maximum: 5 }, { $ref: '#/$defs/Missing', type: 'integer' }, { type: 'array', items: { $ref: '#/$defs/Limit', minimum: 1 } }]) {
      const refused: ChatTool[] = [{ type: 'function', function: { name: 'tune', parameters: { ...inlined, properties: { limit: loose } } } }];
      assert.equal(toolCallTag({ tools: refused, tool_choice: 'required' }, { toolCall: 'glm47', structuralTag: ALWAYS }, PLAIN), null, JSON.stringify(loose));
    }
    // Data is not schema: a $ref-looking default is left alone.
    const data: ChatTool[] = [{ type: 'function', function: { name: 'tune', parameters: { type: 'object', properties: { opts: { type: 'object', default: { $ref: '#/$defs/Limit', maximum: 5 } } } } } }];
    assert.ok(toolCallTag({ tools: data, tool_choice: 'required' }, { toolCall: 'glm47', structuralTag: ALWAYS }, PLAIN));
  });
});
