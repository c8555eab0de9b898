// Upstream's parsers-v2 structural-tag options a worker's card sets, applied to the tags this
// frontend builds: tool arguments in any order, and who lets a prompt-opened reasoning span run.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cardStructuralTagOptions } from '../../../src/models/assembly/index.js';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor } from '../../../src/pipeline/preprocess/index.js';
import { toolCallTag } from '../../../src/pipeline/structural-tags/index.js';
import type { ChatTool, StructuralTagOptions, StructuralTagPolicy, ToolCallParserName } from '../../../src/protocols/index.js';

const FORECAST = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] };
const TOOLS: ChatTool[] = [{ type: 'function', function: { name: 'forecast', parameters: FORECAST } }];
const ALWAYS: StructuralTagPolicy = { scope: 'always', schema: 'auto' };
const IN_REASONING = { toolsLeftOutForNone: true, startsInReasoning: true };

function tag(parser: ToolCallParserName, options: StructuralTagOptions | undefined, context = IN_REASONING) {
  return JSON.stringify(toolCallTag({ tools: TOOLS, tool_choice: 'required' }, { toolCall: parser, structuralTag: ALWAYS, structuralTagOptions: options }, context)!.tag);
}

describe('parsers-v2 structural-tag options', () => {
  it('a card without a structural_tag object, or one leaving them out: upstream defaults; given: read', () => {
    const defaults = { toolArgumentsAnyOrder: false, reasoningBoundary: 'auto' };
    assert.deepEqual(cardStructuralTagOptions({ runtime_config: { structural_tag_mode: 'on' } }), defaults);
    assert.deepEqual(cardStructuralTagOptions({ runtime_config: { structural_tag: {} } }), defaults);
    assert.deepEqual(cardStructuralTagOptions({ runtime_config: { structural_tag: { tool_arguments_any_order: true, reasoning_boundary: 'backend' } } }), {
      toolArgumentsAnyOrder: true,
      reasoningBoundary: 'backend',
    });
  });

  it('tool_arguments_any_order marks every tool-argument schema, in every family', () => {
    for (const parser of ['hermes', 'qwen3_coder', 'deepseek_v4', 'kimi_k2'] as const) {
      assert.ok(!tag(parser, undefined).includes('any_order'), parser);
      const relaxed = tag(parser, { toolArgumentsAnyOrder: true, reasoningBoundary: 'auto' });
      const schemas = relaxed.match(/"type":"json_schema"/g)!.length;
      assert.equal(relaxed.match(/"any_order":true/g)?.length, schemas, parser);
    }
  });

  it('reasoning_boundary backend: no reasoning prefix, the engine lets the reasoning run; auto and structural_tag keep it', () => {
    const prefix = '"end":"</think>"';
    assert.ok(tag('hermes', { toolArgumentsAnyOrder: false, reasoningBoundary: 'auto' }).includes(prefix));
    assert.ok(tag('hermes', { toolArgumentsAnyOrder: false, reasoningBoundary: 'structural_tag' }).includes(prefix));
    assert.ok(!tag('hermes', { toolArgumentsAnyOrder: false, reasoningBoundary: 'backend' }).includes(prefix));
  });

  it('the preprocessor sends the engine the relaxed tag', async () => {
    const card = loadDefaultModelCard();
    const pre = new Preprocessor(card, new HfTokenizer(card.tokenizerJsonPath), {
      parsers: { toolCall: 'hermes', reasoning: null, structuralTag: ALWAYS, structuralTagOptions: { toolArgumentsAnyOrder: true, reasoningBoundary: 'auto' } },
    });
    const run = await pre.preprocessChat(pre.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'Weather?' }], tools: TOOLS, tool_choice: 'required' }));
    assert.match(JSON.stringify(run.request.sampling_options.guided_decoding!.structural_tag), /"any_order":true/);
  });
});
