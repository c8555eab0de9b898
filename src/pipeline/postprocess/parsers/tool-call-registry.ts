// The tool-call parsers by the name a worker's card gives (`runtime_config.tool_call_parser`).
// Partial for now: the non-JSON formats (pythonic, qwen3_coder, harmony, deepseek_v3, deepseek_v3_1,
// kimi_k2, glm47, minimax_m2) are written on another branch; the lead makes this total when merging.

import type { ToolCallParserName } from '../../../protocols/parser-names.js';
import type { ToolCallParserFactory } from './tool-call-parser.js';
import {
  defaultToolCallParser,
  hermesToolCallParser,
  jambaToolCallParser,
  llama3JsonToolCallParser,
  mistralToolCallParser,
  nemotronDeciToolCallParser,
  phi4ToolCallParser,
} from './tool-json-formats.js';

export const TOOL_CALL_PARSERS: Partial<Record<ToolCallParserName, ToolCallParserFactory>> = {
  hermes: hermesToolCallParser,
  llama3_json: llama3JsonToolCallParser,
  mistral: mistralToolCallParser,
  jamba: jambaToolCallParser,
  nemotron_deci: nemotronDeciToolCallParser,
  phi4: phi4ToolCallParser,
  default: defaultToolCallParser,
};
