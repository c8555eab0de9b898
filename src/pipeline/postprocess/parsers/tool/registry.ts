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
} from './json-formats.js';
import {
  deepseekV31ToolCallParser,
  deepseekV3ToolCallParser,
  harmonyToolCallParser,
  kimiK2ToolCallParser,
} from './json-calls.js';
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
  kimi_k2: kimiK2ToolCallParser,
  glm47: glm47ToolCallParser,
  minimax_m2: minimaxM2ToolCallParser,
  jamba: jambaToolCallParser,
  nemotron_deci: nemotronDeciToolCallParser,
  phi4: phi4ToolCallParser,
  default: defaultToolCallParser,
};
