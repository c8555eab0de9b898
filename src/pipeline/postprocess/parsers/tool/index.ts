// Tool-call parsers: calls read out of a choice's answer text as it streams, by the parser name a
// worker's card gives (or the guided JSON of a forced tool choice), and the calls an engine parsed itself.
export { TOOL_CALL_PARSERS } from './registry.js';
export { toolCallsFor, type ChoiceToolCalls, type ToolRequest } from './selection.js';
export type { ToolCallParser, ToolCallParserFactory, ToolCallParserOptions, ToolParseItem, ToolSpec } from './parser.js';
export { EngineToolCalls } from './engine-calls.js';
