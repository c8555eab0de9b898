// The tool-call parsers by the name a worker's card gives (`runtime_config.tool_call_parser`). The
// mapped type makes the compiler demand one entry per name in protocols/names/parser-names.ts.

import type { ToolCallParserName } from '../../../../protocols/names/parser-names.js';
import type { ToolCallParserFactory } from './parser.js';
import {
  defaultToolCallParser,
  hermesToolCallParser,
  jambaToolCallParser,
  llama3JsonToolCallParser,
  mistralToolCallParser,
  nemotronDeciToolCallParser,
  phi4ToolCallParser,
  qwen25ToolCallParser,
} from './json/index.js';
import {
  deepseekV31ToolCallParser,
  deepseekV32ToolCallParser,
  deepseekV3ToolCallParser,
  deepseekV4ToolCallParser,
  glm47ToolCallParser,
  harmonyToolCallParser,
  kimiK2ToolCallParser,
  minimaxM2ToolCallParser,
  qwen3CoderToolCallParser,
} from './markup/index.js';
import { pythonicToolCallParser } from './pythonic.js';
import { gemma4ToolCallParser, kimiK3ToolCallParser, minimaxM3ToolCallParser, museGlimmerToolCallParser } from './whole/index.js';

export const TOOL_CALL_PARSERS: Record<ToolCallParserName, ToolCallParserFactory> = {
  hermes: hermesToolCallParser,
  llama3_json: llama3JsonToolCallParser,
  mistral: mistralToolCallParser,
  pythonic: pythonicToolCallParser,
  qwen3_coder: qwen3CoderToolCallParser,
  harmony: harmonyToolCallParser,
  deepseek_v3: deepseekV3ToolCallParser,
  deepseek_v3_1: deepseekV31ToolCallParser,
  deepseek_v3_2: deepseekV32ToolCallParser,
  deepseek_v4: deepseekV4ToolCallParser,
  'deepseek-v4': deepseekV4ToolCallParser,
  deepseekv4: deepseekV4ToolCallParser,
  kimi_k2: kimiK2ToolCallParser,
  kimi_k3: kimiK3ToolCallParser,
  'kimi-k3': kimiK3ToolCallParser,
  glm47: glm47ToolCallParser,
  minimax_m2: minimaxM2ToolCallParser,
  minimax_m3: minimaxM3ToolCallParser,
  'minimax-m3': minimaxM3ToolCallParser,
  gemma4: gemma4ToolCallParser,
  'gemma-4': gemma4ToolCallParser,
  jamba: jambaToolCallParser,
  nemotron_deci: nemotronDeciToolCallParser,
  // Nemotron Nano writes Qwen3-Coder's format.
  nemotron_nano: qwen3CoderToolCallParser,
  qwen25: qwen25ToolCallParser,
  muse_glimmer: museGlimmerToolCallParser,
  phi4: phi4ToolCallParser,
  default: defaultToolCallParser,
};
