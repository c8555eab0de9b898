// The structural tag a chat request gets, as upstream's frontend builds it: the exact payload per
// parser family, the activation scope, the schema mode, the `none` ban, the reasoning prefix.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { toolCallTag, type ToolCallFormat } from '../../../src/pipeline/structural-tags/index.js';
import type { ChatCompletionRequest, ChatTool, StructuralTagPolicy, ToolCallParserName } from '../../../src/protocols/index.js';

const FORECAST = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const TOOLS: ChatTool[] = [
  { type: 'function', function: { name: 'forecast', parameters: FORECAST } },
  { type: 'function', function: { name: 'clock', parameters: { type: 'object', properties: { zone: { type: 'string' } } }, strict: false } },
];
const ALWAYS: StructuralTagPolicy = { scope: 'always', schema: 'auto' };
const AUTO: StructuralTagPolicy = { scope: 'auto', schema: 'auto' };
const CONTEXT = { toolsLeftOutForNone: true, startsInReasoning: false };

type Req = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'response_format'>;

function tagOf(parser: ToolCallParserName | null, policy: StructuralTagPolicy | null, request: Req, context = CONTEXT) {
  const format: ToolCallFormat = { toolCall: parser, structuralTag: policy };
  return toolCallTag(request, format, context);
}

const named = (name: string) => ({ type: 'function' as const, function: { name } });

describe('the payload per parser family', () => {
  it('hermes and qwen25: a JSON tag per tool after <tool_call>', () => {
    for (const parser of ['hermes', 'qwen25'] as const) {
      assert.deepEqual(tagOf(parser, ALWAYS, { tools: TOOLS, tool_choice: 'auto' }), {
        native: true,
        tag: {
          type: 'structural_tag',
          format: {
            type: 'triggered_tags',
            triggers: ['<tool_call>'],
            tags: [
              { type: 'tag', begin: '<tool_call>\n{"name": "forecast", "arguments": ', content: { type: 'json_schema', json_schema: FORECAST, style: 'json' }, end: '}\n</tool_call>' },
              // strict: false under schema auto: any JSON.
              { type: 'tag', begin: '<tool_call>\n{"name": "clock", "arguments": ', content: { type: 'json_schema', json_schema: true, style: 'json' }, end: '}\n</tool_call>' },
            ],
            at_least_one: false,
            stop_after_first: false,
          },
        },
      });
    }
  });

  it('qwen3_coder and nemotron_nano: XML parameters; a tool that can take only {} has an empty body', () => {
    const closed = { type: 'object', properties: {}, additionalProperties: false };
    const tools: ChatTool[] = [TOOLS[0]!, { type: 'function', function: { name: 'ping', parameters: closed } }];
    for (const parser of ['qwen3_coder', 'nemotron_nano'] as const) {
      assert.deepEqual(tagOf(parser, ALWAYS, { tools, tool_choice: 'required' })?.tag.format, {
        type: 'triggered_tags',
        triggers: ['<tool_call>\n<function='],
        tags: [
          { type: 'tag', begin: '<tool_call>\n<function=forecast>\n', content: { type: 'json_schema', json_schema: FORECAST, style: 'qwen_xml' }, end: '\n</function>\n</tool_call>' },
          { type: 'tag', begin: '<tool_call>\n<function=ping>\n', content: { type: 'const_string', value: '' }, end: '\n</function>\n</tool_call>' },
        ],
        at_least_one: true,
        stop_after_first: false,
      });
    }
  });

  it('deepseek_v4 and its aliases: a DSML tool_calls block of invokes; deepseek_v3_2: function_calls', () => {
    const expected = (block: string) => ({
      type: 'triggered_tags',
      triggers: [`<｜DSML｜${block}>`],
      tags: [
        {
          type: 'tag',
          begin: `<｜DSML｜${block}>\n`,
          content: {
            type: 'tags_with_separator',
            tags: [{ type: 'tag', begin: '<｜DSML｜invoke name="forecast">\n', content: { type: 'json_schema', json_schema: FORECAST, style: 'deepseek_xml' }, end: '</｜DSML｜invoke>\n' }],
            separator: '',
            at_least_one: true,
            stop_after_first: true,
          },
          end: `</｜DSML｜${block}>`,
        },
      ],
      at_least_one: true,
      stop_after_first: true,
    });
    const request: Req = { tools: TOOLS, tool_choice: named('forecast'), parallel_tool_calls: false };
    for (const parser of ['deepseek_v4', 'deepseek-v4', 'deepseekv4'] as const) assert.deepEqual(tagOf(parser, ALWAYS, request)?.tag.format, expected('tool_calls'));
    assert.deepEqual(tagOf('deepseek_v3_2', ALWAYS, request)?.tag.format, expected('function_calls'));
  });

  it('kimi_k2: its special-token section, call numbers left to the model', () => {
    const call = (name: string, schema: unknown) => ({
      type: 'tag',
      begin: `<|tool_call_begin|>functions.${name}:`,
      content: {
        type: 'sequence',
        elements: [
          { type: 'regex', pattern: '\\d+' },
          { type: 'const_string', value: '<|tool_call_argument_begin|>' },
          { type: 'json_schema', json_schema: schema, style: 'json' },
        ],
      },
      end: '<|tool_call_end|>',
    });
    assert.deepEqual(tagOf('kimi_k2', ALWAYS, { tools: TOOLS, tool_choice: 'required' })?.tag.format, {
      type: 'sequence',
      elements: [
        { type: 'const_string', value: '<|tool_calls_section_begin|>' },
        { type: 'tags_with_separator', tags: [call('forecast', FORECAST), call('clock', true)], separator: '', at_least_one: true, stop_after_first: false },
        { type: 'const_string', value: '<|tool_calls_section_end|>' },
      ],
    });
    assert.deepEqual(tagOf('kimi_k2', ALWAYS, { tools: TOOLS, tool_choice: named('clock') })?.tag.format, {
      type: 'sequence',
      elements: [{ type: 'const_string', value: '<|tool_calls_section_begin|>' }, call('clock', true), { type: 'const_string', value: '<|tool_calls_section_end|>' }],
    });
    const auto = tagOf('kimi_k2', ALWAYS, { tools: TOOLS })?.tag.format as Record<string, unknown>;
    assert.equal(auto.type, 'triggered_tags');
    assert.deepEqual(auto.triggers, ['<|tool_calls_section_begin|>']);
    assert.equal(auto.at_least_one, false);
  });

  it('a parser without a builder gets no tag, and neither does a model without a parser', () => {
    for (const parser of ['mistral', 'gemma4', 'minimax_m3', null] as const) assert.equal(tagOf(parser, ALWAYS, { tools: TOOLS, tool_choice: 'required' }), null, String(parser));
  });
});

describe('when a request gets a tag', () => {
  it('scope always: every tool choice but none; scope auto: forced choices, a strict tool, or one call only', () => {
    const auto: Req = { tools: TOOLS, tool_choice: 'auto' };
    assert.ok(tagOf('hermes', ALWAYS, auto));
    assert.ok(tagOf('hermes', ALWAYS, { tools: TOOLS }), 'no tool_choice is auto');
    assert.equal(tagOf('hermes', AUTO, auto), null);
    assert.ok(tagOf('hermes', AUTO, { ...auto, parallel_tool_calls: false }));
    assert.ok(tagOf('hermes', AUTO, { tools: [{ type: 'function', function: { ...TOOLS[0]!.function, strict: true } }], tool_choice: 'auto' }));
    assert.ok(tagOf('hermes', AUTO, { tools: TOOLS, tool_choice: 'required' }));
    assert.ok(tagOf('hermes', AUTO, { tools: TOOLS, tool_choice: named('clock') }));
  });

  it('a named choice constrains to that tool; one call only stops after the first', () => {
    const format = tagOf('hermes', AUTO, { tools: TOOLS, tool_choice: named('clock'), parallel_tool_calls: false })!.tag.format as Record<string, unknown>;
    assert.deepEqual((format.tags as { begin: string }[]).map((t) => t.begin), ['<tool_call>\n{"name": "clock", "arguments": ']);
    assert.equal(format.at_least_one, true);
    assert.equal(format.stop_after_first, true);
  });

  it('schema strict enforces the parameters of a strict: false tool too; a tool without parameters takes any JSON', () => {
    const strict = tagOf('hermes', { scope: 'always', schema: 'strict' }, { tools: TOOLS })!.tag.format as { tags: { content: { json_schema: unknown } }[] };
    assert.deepEqual(strict.tags[1]!.content.json_schema, TOOLS[1]!.function.parameters);
    const bare = tagOf('hermes', ALWAYS, { tools: [{ type: 'function', function: { name: 'now' } }] })!.tag.format as { tags: { content: { json_schema: unknown } }[] };
    assert.equal(bare.tags[0]!.content.json_schema, true);
  });

  it('off: no tag, but Kimi K2 keeps its forced calls native, as upstream', () => {
    assert.equal(tagOf('hermes', null, { tools: TOOLS, tool_choice: 'required' }), null);
    assert.ok(tagOf('kimi_k2', null, { tools: TOOLS, tool_choice: 'required' })?.native);
    assert.ok(tagOf('kimi_k2', null, { tools: TOOLS, tool_choice: named('forecast') })?.native);
    assert.equal(tagOf('kimi_k2', null, { tools: TOOLS, tool_choice: 'auto' }), null);
  });

  it('tool_choice none: a ban on opening a call, only when the tools stay in the prompt', () => {
    const none: Req = { tools: TOOLS, tool_choice: 'none' };
    assert.equal(tagOf('hermes', ALWAYS, none), null, 'the template left the tools out');
    const kept = { ...CONTEXT, toolsLeftOutForNone: false };
    assert.deepEqual(tagOf('hermes', ALWAYS, none, kept), {
      native: false,
      tag: { type: 'structural_tag', format: { type: 'tag', begin: '', content: { type: 'any_tokens', exclude_tokens: ['<tool_call>'] }, end: '' } },
    });
    assert.deepEqual((tagOf('deepseek_v4', ALWAYS, none, kept)!.tag.format as { content: unknown }).content, { type: 'any_tokens', exclude_tokens: ['｜DSML｜'] });
    assert.equal(tagOf('kimi_k2', ALWAYS, none, kept), null, 'a family with nothing to ban');
    assert.equal(tagOf('hermes', ALWAYS, { tools: [], tool_choice: 'none' }, kept), null);
  });

  it('a response format keeps an automatic choice untagged; a forced choice is still tagged', () => {
    const format = { type: 'json_object' as const };
    assert.equal(tagOf('hermes', ALWAYS, { tools: TOOLS, response_format: format }), null);
    assert.ok(tagOf('hermes', ALWAYS, { tools: TOOLS, response_format: { type: 'text' } }));
    assert.ok(tagOf('hermes', ALWAYS, { tools: TOOLS, tool_choice: 'required', response_format: format }));
  });

  it('a forced call after a reasoning span the prompt opened lets the reasoning run first', () => {
    const thinking = { ...CONTEXT, startsInReasoning: true };
    const forced = tagOf('qwen3_coder', ALWAYS, { tools: TOOLS, tool_choice: 'required' }, thinking)!.tag.format as { type: string; elements: unknown[] };
    assert.equal(forced.type, 'sequence');
    assert.deepEqual(forced.elements[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: [] }, end: '</think>' });
    assert.equal((forced.elements[1] as { type: string }).type, 'triggered_tags');
    assert.equal(tagOf('qwen3_coder', ALWAYS, { tools: TOOLS }, thinking)!.tag.format.type, 'triggered_tags', 'an automatic choice may answer in text');
  });
});
