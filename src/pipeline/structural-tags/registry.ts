// The structural-tag builders by tool-call parser name, as upstream's parser registry gives them;
// a parser without one gets no tag (its requests fall back to plain parsing, without an error).
// The families upstream's parsers-v2 builders cover (Qwen3-Coder, DeepSeek V4's DSML, GLM-4.7, Kimi
// K2 and K3) carry their parsers-v2 forms; the rest are upstream's v1 builders alone.

import type { ToolCallParserName } from '../../protocols/index.js';
import { dsmlBlock, triggeredTags, type StructuralTagBuilder, type TriggeredTagsSpec } from './builders.js';
import { glm47Calls } from './glm47.js';
import { kimiK2Section } from './kimi-k2.js';
import { kimiK3Channels } from './kimi-k3.js';

const HERMES = triggeredTags({
  begin: '<tool_call>\n{"name": "{name}", "arguments": ',
  end: '}\n</tool_call>',
  triggers: ['<tool_call>'],
  style: 'json',
  banTokens: ['<tool_call>'],
});

const QWEN3_CODER_CALLS: TriggeredTagsSpec = {
  begin: '<tool_call>\n<function={name}>\n',
  end: '\n</function>\n</tool_call>',
  triggers: ['<tool_call>\n<function='],
  style: 'qwen_xml',
  banTokens: ['<tool_call>'],
};

const QWEN3_CODER = triggeredTags({
  ...QWEN3_CODER_CALLS,
  parsersV2: {
    separator: '\n',
    // A bare `<function=` opens a call too, as the Qwen3-Coder parser reads it.
    textExcludes: ['<think>', '</think>', '<function='],
    reasoningExcludes: ['<tool_call>', '<function='],
    reasoningSuffix: '\n\n',
  },
});

// Upstream gives Nemotron Nano the Qwen3-Coder v1 builder only: its parsers-v2 registry has no
// such family, so the parsers-v2 forms are Qwen3-Coder's alone.
const NEMOTRON_NANO = triggeredTags(QWEN3_CODER_CALLS);

const DEEPSEEK_V4 = dsmlBlock('tool_calls', { parsersV2: true });

export const STRUCTURAL_TAG_BUILDERS: Partial<Record<ToolCallParserName, StructuralTagBuilder>> = {
  hermes: HERMES,
  qwen25: HERMES,
  qwen3_coder: QWEN3_CODER,
  nemotron_nano: NEMOTRON_NANO,
  deepseek_v3_2: dsmlBlock('function_calls', { parsersV2: false }),
  deepseek_v4: DEEPSEEK_V4,
  'deepseek-v4': DEEPSEEK_V4,
  deepseekv4: DEEPSEEK_V4,
  glm47: glm47Calls,
  kimi_k2: kimiK2Section,
  kimi_k3: kimiK3Channels,
  'kimi-k3': kimiK3Channels,
};
