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
export {
  REASONING_PARSERS,
  reasoningFor,
  replyStartsInReasoning,
  type ChoiceReasoning,
  type ReasoningParser,
  type ReasoningParserFactory,
  type ReasoningParserOptions,
  type ReasoningRule,
  type ReasoningSplit,
  type ReplyStart,
  type TemplateArgs,
} from './parsers/reasoning/index.js';
export {
  TOOL_CALL_PARSERS,
  toolCallsFor,
  type ChoiceToolCalls,
  type ToolCallParser,
  type ToolCallParserFactory,
  type ToolCallParserOptions,
  type ToolParseItem,
  type ToolRequest,
  type ToolSpec,
} from './parsers/tool/index.js';
