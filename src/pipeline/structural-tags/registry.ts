// The structural-tag builders by tool-call parser name, as upstream's parser registry gives them;
// a parser without one gets no tag (its requests fall back to plain parsing, without an error).

import type { ToolCallParserName } from '../../protocols/index.js';
import { dsmlBlock, kimiK2Section, triggeredTags, type StructuralTagBuilder } from './builders.js';
import { kimiK3Channels } from './kimi-k3.js';

const HERMES = triggeredTags({
  begin: '<tool_call>\n{"name": "{name}", "arguments": ',
  end: '}\n</tool_call>',
  triggers: ['<tool_call>'],
  style: 'json',
  banTokens: ['<tool_call>'],
});

const QWEN3_CODER = triggeredTags({
  begin: '<tool_call>\n<function={name}>\n',
  end: '\n</function>\n</tool_call>',
  triggers: ['<tool_call>\n<function='],
  style: 'qwen_xml',
  banTokens: ['<tool_call>'],
  separator: '\n',
  // As upstream's parsers-v2 Qwen3-Coder grammar: a bare `<function=` is a call opening too.
  specialTokens: { text: ['<think>', '</think>', '<function='], reasoning: ['<tool_call>', '<function='] },
});

const DEEPSEEK_V4 = dsmlBlock('tool_calls');

export const STRUCTURAL_TAG_BUILDERS: Partial<Record<ToolCallParserName, StructuralTagBuilder>> = {
  hermes: HERMES,
  qwen25: HERMES,
  qwen3_coder: QWEN3_CODER,
  nemotron_nano: QWEN3_CODER,
  deepseek_v3_2: dsmlBlock('function_calls'),
  deepseek_v4: DEEPSEEK_V4,
  'deepseek-v4': DEEPSEEK_V4,
  deepseekv4: DEEPSEEK_V4,
  kimi_k2: kimiK2Section,
  kimi_k3: kimiK3Channels,
  'kimi-k3': kimiK3Channels,
};
