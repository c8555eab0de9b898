// Two of upstream's parsers-v2 structural-tag options a card sets. `allow_tool_calls_with_structured_output`:
// an automatic tool choice beside a response format gets a tag of either the calls alone or the
// answer in the response's schema, where upstream's parsers-v2 builders cover the family (otherwise
// the response format keeps it untagged). `exclude_special_tokens`: true keeps the family's markers out of the
// tag's free text.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cardStructuralTagOptions } from '../../../src/models/assembly/index.js';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor } from '../../../src/pipeline/preprocess/index.js';
import { toolCallTag, type TagContext } from '../../../src/pipeline/structural-tags/index.js';
import type { ChatCompletionRequest, ChatTool, StructuralTagOptions, StructuralTagPolicy, ToolCallParserName } from '../../../src/protocols/index.js';

const FORECAST = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const ANSWER = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const TOOLS: ChatTool[] = [
  { type: 'function', function: { name: 'forecast', parameters: FORECAST } },
  { type: 'function', function: { name: 'loose', parameters: FORECAST, strict: false } },
];
const SCHEMA_FORMAT = { type: 'json_schema', json_schema: { name: 'answer', schema: ANSWER } } as const;
const ALWAYS: StructuralTagPolicy = { scope: 'always', schema: 'auto' };
const ALLOW: StructuralTagOptions = { toolArgumentsAnyOrder: false, reasoningBoundary: 'auto', toolCallsWithStructuredOutput: true };
const PLAIN: TagContext = { toolsLeftOutForNone: true, startsInReasoning: false };

type Fields = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'response_format'>;
const build = (request: Fields, options: StructuralTagOptions | undefined, parser: ToolCallParserName = 'qwen3_coder', context = PLAIN, policy: StructuralTagPolicy | null = ALWAYS) =>
  toolCallTag(request, { toolCall: parser, structuralTag: policy, structuralTagOptions: options }, context);

const qwenCall = (name: string, schema: unknown) => ({
  type: 'tag',
  begin: `<tool_call>\n<function=${name}>\n`,
  content: { type: 'json_schema', json_schema: schema, style: 'qwen_xml' },
  end: '\n</function>\n</tool_call>',
});

describe('allow_tool_calls_with_structured_output', () => {
  it('a card sets it in the options it publishes; absent or false: not set', () => {
    assert.equal(cardStructuralTagOptions({ runtime_config: { structural_tag: { allow_tool_calls_with_structured_output: true } } }).toolCallsWithStructuredOutput, true);
    assert.equal(cardStructuralTagOptions({ runtime_config: { structural_tag: { allow_tool_calls_with_structured_output: false } } }).toolCallsWithStructuredOutput, undefined);
    assert.equal(cardStructuralTagOptions({ runtime_config: { structural_tag: {} } }).toolCallsWithStructuredOutput, undefined);
  });

  it('auto with a json_schema response: either the calls alone or the answer', () => {
    const got = build({ tools: TOOLS, tool_choice: 'auto', response_format: SCHEMA_FORMAT }, ALLOW);
    assert.deepEqual(got, {
      native: true,
      tag: {
        type: 'structural_tag',
        format: {
          type: 'or',
          elements: [
            { type: 'tags_with_separator', tags: [qwenCall('forecast', FORECAST), qwenCall('loose', true)], separator: '\n', at_least_one: true, stop_after_first: false },
            { type: 'json_schema', json_schema: ANSWER, style: 'json' },
          ],
        },
      },
    });
  });

  it('json_object is any object; parallel_tool_calls false stops after the first call; any order leaves the answer alone', () => {
    const format = build({ tools: TOOLS, response_format: { type: 'json_object' }, parallel_tool_calls: false }, { ...ALLOW, toolArgumentsAnyOrder: true })!.tag.format;
    assert.equal(format.type, 'or');
    if (format.type !== 'or') return;
    const [calls, answer] = format.elements;
    assert.deepEqual(answer, { type: 'json_schema', json_schema: { type: 'object' }, style: 'json' });
    assert.equal(calls!.type === 'tags_with_separator' && calls.stop_after_first, true);
    assert.match(JSON.stringify(calls), /"any_order":true/);
  });

  it('a reply starting inside reasoning lets it end first (then Qwen3-Coder\'s blank line), unless the backend owns that boundary', () => {
    const request: Fields = { tools: TOOLS, response_format: SCHEMA_FORMAT };
    const inReasoning = { toolsLeftOutForNone: true, startsInReasoning: true };
    const format = build(request, ALLOW, 'qwen3_coder', inReasoning)!.tag.format;
    assert.equal(format.type, 'sequence');
    if (format.type !== 'sequence') return;
    assert.deepEqual(format.elements[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: [] }, end: '</think>' });
    assert.deepEqual(format.elements[1], { type: 'const_string', value: '\n\n' });
    assert.equal(format.elements[2]!.type, 'or');
    assert.equal(build(request, { ...ALLOW, reasoningBoundary: 'backend' }, 'qwen3_coder', inReasoning)!.tag.format.type, 'or');
  });

  it('no tag: option off, structural tags off, no tools, tool_choice none, or a family upstream builds only with its v1 builder', () => {
    const request: Fields = { tools: TOOLS, tool_choice: 'auto', response_format: SCHEMA_FORMAT };
    assert.equal(build(request, undefined), null);
    assert.equal(build(request, { ...ALLOW, toolCallsWithStructuredOutput: false }), null);
    assert.equal(build(request, ALLOW, 'qwen3_coder', PLAIN, null), null);
    assert.equal(build({ ...request, tools: [] }, ALLOW), null);
    assert.equal(build({ ...request, tool_choice: 'none' }, ALLOW), null);
    for (const parser of ['hermes', 'qwen25', 'nemotron_nano', 'deepseek_v3_2'] as const) assert.equal(build(request, ALLOW, parser), null, parser);
  });

  it('a forced choice still wins over the response format, as before', () => {
    const format = build({ tools: TOOLS, tool_choice: 'required', response_format: SCHEMA_FORMAT }, ALLOW)!.tag.format;
    assert.equal(format.type, 'triggered_tags');
  });

  it('the preprocessor sends the engine the tag in place of the response format', async () => {
    const card = loadDefaultModelCard();
    const pre = new Preprocessor(card, new HfTokenizer(card.tokenizerJsonPath), {
      parsers: { toolCall: 'qwen3_coder', reasoning: null, structuralTag: ALWAYS, structuralTagOptions: ALLOW },
    });
    const run = await pre.preprocessChat(
      pre.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'Weather?' }], tools: TOOLS, response_format: SCHEMA_FORMAT }),
    );
    const guided = run.request.sampling_options.guided_decoding!;
    assert.equal(guided.json ?? null, null);
    assert.equal((guided.structural_tag as { format: { type: string } }).format.type, 'or');
    assert.equal(run.toolCallsNative, true);
  });
});

describe('exclude_special_tokens', () => {
  const inReasoning = { toolsLeftOutForNone: true, startsInReasoning: true };
  const EXCLUDE: StructuralTagOptions = { toolArgumentsAnyOrder: false, reasoningBoundary: 'auto', excludeSpecialTokens: true };

  it('a card sets it when true or false; null (the default) leaves it unset', () => {
    assert.equal(cardStructuralTagOptions({ runtime_config: { structural_tag: { exclude_special_tokens: true } } }).excludeSpecialTokens, true);
    assert.equal(cardStructuralTagOptions({ runtime_config: { structural_tag: { exclude_special_tokens: false } } }).excludeSpecialTokens, false);
    assert.equal(cardStructuralTagOptions({ runtime_config: { structural_tag: { exclude_special_tokens: null } } }).excludeSpecialTokens, undefined);
  });

  it('true: the free text between calls excludes the reasoning markers and a bare call opening', () => {
    const format = build({ tools: TOOLS, tool_choice: 'auto' }, EXCLUDE)!.tag.format;
    assert.equal(format.type, 'triggered_tags');
    assert.deepEqual(format.type === 'triggered_tags' && format.excludes, ['<think>', '</think>', '<function=']);
  });

  it('true: a reasoning span the tag lets run excludes the call openings', () => {
    const format = build({ tools: TOOLS, tool_choice: 'required' }, EXCLUDE, 'qwen3_coder', inReasoning)!.tag.format;
    assert.equal(format.type, 'sequence');
    if (format.type !== 'sequence') return;
    assert.deepEqual(format.elements[0], { type: 'tag', begin: '', content: { type: 'any_text', excludes: ['<tool_call>', '<function='] }, end: '</think>' });
    const calls = format.elements[1]!;
    assert.deepEqual(calls.type === 'triggered_tags' && calls.excludes, ['<think>', '</think>', '<function=']);
  });

  it('false, unset, or a family upstream builds only with its v1 builder: the tag as before', () => {
    const request: Fields = { tools: TOOLS, tool_choice: 'required' };
    const plain = JSON.stringify(build(request, undefined, 'qwen3_coder', inReasoning));
    assert.equal(JSON.stringify(build(request, { ...EXCLUDE, excludeSpecialTokens: false }, 'qwen3_coder', inReasoning)), plain);
    assert.ok(!plain.includes('"excludes":['.concat('"')));
    for (const parser of ['hermes', 'qwen25', 'nemotron_nano', 'deepseek_v3_2'] as const) {
      assert.equal(JSON.stringify(build(request, EXCLUDE, parser, inReasoning)), JSON.stringify(build(request, undefined, parser, inReasoning)), parser);
    }
  });
});
