// The engine request a chat becomes under each card's structural-tag settings: the tag in
// `sampling_options.guided_decoding`, for every parser with a builder, and none when it is off.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor } from '../../../src/pipeline/preprocess/index.js';
import type { StructuralTagPolicy, ToolCallParserName } from '../../../src/protocols/index.js';

const card = loadDefaultModelCard();
const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
const ON: StructuralTagPolicy = { scope: 'always', schema: 'auto' };
const TOOLS = [{ type: 'function', function: { name: 'forecast', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

function preprocessor(toolCall: ToolCallParserName | null, structuralTag: StructuralTagPolicy | null, extra: Record<string, unknown> = {}) {
  return new Preprocessor(card, tokenizer, { parsers: { toolCall, reasoning: null, structuralTag }, ...extra });
}

async function prepared(pre: Preprocessor, body: Record<string, unknown>) {
  return pre.preprocessChat(pre.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'Weather?' }], tools: TOOLS, ...body }));
}

/** Each builder's opening, as the engine receives it. */
const OPENINGS: [ToolCallParserName, string, string][] = [
  ['hermes', 'triggered_tags', '<tool_call>\n{"name": "forecast", "arguments": '],
  ['qwen25', 'triggered_tags', '<tool_call>\n{"name": "forecast", "arguments": '],
  ['qwen3_coder', 'triggered_tags', '<tool_call>\n<function=forecast>\n'],
  ['nemotron_nano', 'triggered_tags', '<tool_call>\n<function=forecast>\n'],
  ['deepseek_v3_2', 'triggered_tags', '<｜DSML｜function_calls>\n'],
  ['deepseek_v4', 'triggered_tags', '<｜DSML｜tool_calls>\n'],
  ['deepseek-v4', 'triggered_tags', '<｜DSML｜tool_calls>\n'],
  ['deepseekv4', 'triggered_tags', '<｜DSML｜tool_calls>\n'],
  ['glm47', 'triggered_tags', '<tool_call>forecast'],
  ['kimi_k2', 'sequence', '<|tool_calls_section_begin|>'],
];

test('every parser with a builder: a required choice carries its tag instead of the JSON schema, read natively', async () => {
  for (const [parser, type, opening] of OPENINGS) {
    const run = await prepared(preprocessor(parser, ON), { tool_choice: 'required' });
    const gd = run.request.sampling_options.guided_decoding!;
    const format = (gd.structural_tag as { type: string; format: { type: string; tags?: { begin: string }[]; elements?: { value: string }[] } }).format;
    assert.equal(format.type, type, parser);
    assert.equal(format.tags?.[0]?.begin ?? format.elements?.[0]?.value, opening, parser);
    assert.equal(gd.json, null, parser);
    assert.equal(run.toolCallsNative, true, parser);
  }
});

test('off, or a parser without a builder: the tool choice\'s JSON schema and no tag', async () => {
  for (const pre of [preprocessor('hermes', null), preprocessor('mistral', ON), preprocessor(null, ON), new Preprocessor(card, tokenizer)]) {
    const run = await prepared(pre, { tool_choice: 'required' });
    const gd = run.request.sampling_options.guided_decoding!;
    assert.equal(gd.structural_tag, null);
    assert.equal((gd.json as { type: string }).type, 'array');
    assert.equal(run.toolCallsNative, undefined);
  }
});

test('an automatic choice under scope always is tagged; under scope auto it is not', async () => {
  assert.ok((await prepared(preprocessor('hermes', ON), {})).request.sampling_options.guided_decoding?.structural_tag);
  assert.equal((await prepared(preprocessor('hermes', { scope: 'auto', schema: 'auto' }), {})).request.sampling_options.guided_decoding, null);
});

test('tool_choice none: the ban only with the tools kept in the prompt', async () => {
  assert.equal((await prepared(preprocessor('hermes', ON), { tool_choice: 'none' })).request.sampling_options.guided_decoding, null);
  const kept = await prepared(preprocessor('hermes', ON, { excludeToolsWhenToolChoiceNone: false }), { tool_choice: 'none' });
  assert.deepEqual(kept.request.sampling_options.guided_decoding?.structural_tag, {
    type: 'structural_tag',
    format: { type: 'tag', begin: '', content: { type: 'any_tokens', exclude_tokens: ['<tool_call>'] }, end: '' },
  });
  assert.equal(kept.toolCallsNative, undefined);
});

test("a client's own structural tag, and a worker that applies the template itself, get no tool tag", async () => {
  const own = await prepared(preprocessor('hermes', ON), { tool_choice: 'required', structural_tag: '{"type": "structural_tag"}' });
  assert.equal(own.request.sampling_options.guided_decoding?.structural_tag, '{"type": "structural_tag"}');
  const forwarded = await prepared(preprocessor('hermes', ON, { forwardMessages: true }), { tool_choice: 'required' });
  assert.equal(forwarded.request.sampling_options.guided_decoding?.structural_tag, null);
});

test('a forced call after a span the prompt opened: the reasoning first', async () => {
  const pre = new Preprocessor(card, tokenizer, { parsers: { toolCall: 'hermes', reasoning: 'deepseek_r1', structuralTag: ON } });
  const run = await prepared(pre, { tool_choice: 'required' });
  const format = (run.request.sampling_options.guided_decoding?.structural_tag as { format: { type: string; elements: { end?: string }[] } }).format;
  assert.equal(format.type, 'sequence');
  assert.equal(format.elements[0]!.end, '</think>');
});
