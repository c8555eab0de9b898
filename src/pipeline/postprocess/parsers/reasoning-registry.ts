// Reasoning parsers by the name a worker's card gives (`runtime_config.reasoning_parser`). The
// mapped type makes the compiler demand one entry per name in protocols/parser-names.ts.

import type { ReasoningParserName } from '../../../protocols/index.js';
import type { ReasoningParserFactory } from './reasoning-parser.js';
import { graniteReasoning } from './reasoning-granite.js';
import { harmonyReasoning } from './reasoning-harmony.js';
import { kimiReasoning } from './reasoning-kimi.js';
import { mistralReasoning } from './reasoning-mistral.js';
import { openThinkTagsReasoning, thinkTagsReasoning } from './reasoning-think-tags.js';

export const REASONING_PARSERS: Record<ReasoningParserName, ReasoningParserFactory> = {
  basic: thinkTagsReasoning,
  deepseek_r1: openThinkTagsReasoning,
  qwen3: openThinkTagsReasoning,
  gpt_oss: harmonyReasoning,
  granite: graniteReasoning,
  kimi: kimiReasoning,
  mistral: mistralReasoning,
  nemotron_deci: thinkTagsReasoning,
  glm45: thinkTagsReasoning,
  minimax_append_think: openThinkTagsReasoning,
};
