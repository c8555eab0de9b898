// Post-processing: detokenize engine output incrementally and apply stop conditions.
export { TokenTable, type TokenBytesSource } from './token-table.js';
export type { LeadingRule } from './decoder-scheme.js';
export { IncrementalDecoder } from './incremental-decoder.js';
export { StopJail } from './stop-jail.js';
export {
  SequenceDecoder,
  stopSettingsFrom,
  type SequenceResult,
  type StopRequest,
  type StopSettings,
  type StopTrigger,
} from './sequence-decoder.js';
export {
  decodeStream,
  choiceFinish,
  type ChoiceFinishReason,
  type DecodeStreamOptions,
  type DecodedStep,
} from './decode-stream.js';
export {
  ResponseFold,
  wireFinishReason,
  type ChoiceDelta,
  type FoldedChoice,
  type FoldedToolCall,
  type ResponseFoldOptions,
  type ToolCallDelta,
  type WireFinishReason,
} from './response-fold.js';
export { tokenLogprobs, type LogprobAlternative, type TokenLogprob } from './token-logprobs.js';
export { REASONING_PARSERS } from './parsers/reasoning-registry.js';
export type { ReasoningRule, ReplyStart, TemplateArgs } from './parsers/reasoning-rules.js';
export { reasoningFor, type ChoiceReasoning } from './parsers/reasoning-selection.js';
export type {
  ReasoningParser,
  ReasoningParserFactory,
  ReasoningParserOptions,
  ReasoningSplit,
} from './parsers/reasoning-parser.js';
export { TOOL_CALL_PARSERS } from './parsers/tool-call-registry.js';
export { toolCallsFor, type ChoiceToolCalls, type ToolRequest } from './parsers/tool-call-selection.js';
export type {
  ToolCallParser,
  ToolCallParserFactory,
  ToolCallParserOptions,
  ToolParseItem,
  ToolSpec,
} from './parsers/tool-call-parser.js';
