// Reasoning parsers by the name a worker's card gives (`runtime_config.reasoning_parser`), each with
// its per-request rules (reasoning-rules.ts). The mapped type makes the compiler demand one entry
// per name in protocols/names/parser-names.ts.

import type { ReasoningParserName } from '../../../../protocols/index.js';
import { gemma4Reasoning } from './gemma4.js';
import { graniteReasoning } from './granite.js';
import { harmonyReasoning } from './harmony.js';
import { KIMI_THINK_OPEN, kimiReasoning } from './kimi.js';
import { KIMI_K3_THINK_OPEN, kimiK3Reasoning } from './kimi-k3.js';
import { MINIMAX_M3_THINK_OPEN, minimaxM3Reasoning } from './minimax-m3.js';
import { mistralReasoning } from './mistral.js';
import { deepseekOff, kimiOff, nemotronOff, type ReasoningRule } from './rules.js';
import { THINK_OPEN, thinkTags } from './think-tags.js';
import { leadingMarkerDropped } from './thinking-off.js';

/** Think tags that start outside unless the rendered prompt left `<think>` open. */
const PROMPT_OPENED: ReasoningRule = { parser: thinkTags(), start: { promptOpener: THINK_OPEN } };

/** DeepSeek V4's tool calls (fullwidth bars), which may follow its reasoning without `</think>`. */
const DEEPSEEK_V4: ReasoningRule = {
  parser: thinkTags(['<｜DSML｜tool_calls>', '<｜DSML｜invoke name=']),
  start: { promptOpener: THINK_OPEN },
  off: deepseekOff(true),
};

const MINIMAX_M3: ReasoningRule = { parser: minimaxM3Reasoning, start: { promptOpener: MINIMAX_M3_THINK_OPEN } };
const GEMMA4: ReasoningRule = { parser: gemma4Reasoning, start: 'markup' };
const KIMI_K3: ReasoningRule = { parser: kimiK3Reasoning, start: { promptOpener: KIMI_K3_THINK_OPEN } };

const NEMOTRON: ReasoningRule = { parser: thinkTags(), start: 'inside', off: nemotronOff, whenOff: leadingMarkerDropped([THINK_OPEN]) };

export const REASONING_PARSERS: Record<ReasoningParserName, ReasoningRule> = {
  basic: PROMPT_OPENED,
  qwen3: PROMPT_OPENED,
  nemotron_deci: PROMPT_OPENED,
  glm45: PROMPT_OPENED,
  deepseek_r1: { parser: thinkTags(), start: 'inside', off: deepseekOff(true) },
  deepseek_v3: { parser: thinkTags(), start: 'inside', off: deepseekOff(false) },
  deepseek_v3_1: { parser: thinkTags(), start: 'inside', off: deepseekOff(false) },
  deepseek_v3_2: { parser: thinkTags(), start: 'inside', off: deepseekOff(true) },
  deepseek_v4: DEEPSEEK_V4,
  'deepseek-v4': DEEPSEEK_V4,
  deepseekv4: DEEPSEEK_V4,
  step3: { parser: thinkTags(), start: 'inside' },
  nemotron_nano: NEMOTRON,
  nemotron3: NEMOTRON,
  nemotron_v3: NEMOTRON,
  kimi_k25: { parser: thinkTags(['<|tool_calls_section_begin|>']), start: 'inside', off: kimiOff },
  kimi_k3: KIMI_K3,
  'kimi-k3': KIMI_K3,
  minimax_m2: {
    parser: thinkTags(['<minimax:tool_call>', '<invoke name=']),
    start: 'inside',
    off: deepseekOff(true),
  },
  minimax_m3: MINIMAX_M3,
  'minimax-m3': MINIMAX_M3,
  gemma4: GEMMA4,
  'gemma-4': GEMMA4,
  // MiniMax-M2's template writes `<think>` itself and the model never does.
  minimax_append_think: { parser: thinkTags(), start: 'inside' },
  mistral: { parser: mistralReasoning, start: 'inside' },
  kimi: { parser: kimiReasoning, start: { promptOpener: KIMI_THINK_OPEN } },
  gpt_oss: { parser: harmonyReasoning, start: 'markup' },
  granite: { parser: graniteReasoning, start: 'markup' },
};
