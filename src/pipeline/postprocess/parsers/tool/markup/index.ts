// The tool-call formats of markers around a name and its arguments, on one engine (markup-parser.ts).
export { deepseekV31ToolCallParser, deepseekV3ToolCallParser, harmonyToolCallParser, kimiK2ToolCallParser } from './json-calls.js';
export { deepseekV32ToolCallParser, deepseekV4ToolCallParser } from './dsml-calls.js';
export { glm47ToolCallParser, minimaxM2ToolCallParser, qwen3CoderToolCallParser } from './xml-calls.js';
