// The tool-call parsers by the name a worker's card gives (`runtime_config.tool_call_parser`). The
// mapped type makes the compiler demand one entry per name in protocols/parser-names.ts.

import type { ToolCallParserName } from '../../../../protocols/parser-names.js';
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
} from './json-formats.js';
import {
  deepseekV31ToolCallParser,
  deepseekV3ToolCallParser,
  harmonyToolCallParser,
  kimiK2ToolCallParser,
} from './json-calls.js';
import { deepseekV32ToolCallParser, deepseekV4ToolCallParser } from './dsml-calls.js';
import { gemma4ToolCallParser } from './gemma4-calls.js';
import { kimiK3ToolCallParser } from './kimi-k3-calls.js';
import { minimaxM3ToolCallParser } from './minimax-m3-calls.js';
import { museGlimmerToolCallParser } from './muse-glimmer-calls.js';
import { pythonicToolCallParser } from './pythonic.js';
import { glm47ToolCallParser, minimaxM2ToolCallParser, qwen3CoderToolCallParser } from './xml-calls.js';

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
