export { generateChoices, type GenerationTarget, type PromptRun } from './generate.js';
export { mergeAsync } from './merge-async.js';
export { JobThread, serveJobs, type StreamedJob } from './job-thread.js';
export {
  TokenTable,
  decodeStream,
  ResponseFold,
  reasoningFor,
  toolCallsFor,
  type ChoiceReasoning,
  type ChoiceToolCalls,
  type ChoiceDelta,
  type DecodedStep,
  type FoldedChoice,
  type FoldedToolCall,
  type LogprobAlternative,
  type TokenLogprob,
  type ToolCallDelta,
  type WireFinishReason,
} from './postprocess/index.js';
export { errorKindOf, RequestLifecycle, type RequestDescription, type UsageSource } from './request-lifecycle.js';
export {
  Preprocessor,
  PreprocessPool,
  HfTokenizer,
  checkJsonDepth,
  checkBodyLimits,
  DEFAULT_REQUEST_LIMITS,
  type RequestLimits,
  MAX_JSON_DEPTH,
  validateChatRequest,
  validateCompletionRequest,
  validateEmbeddingRequest,
  validateImageRequest,
  validateVideoRequest,
  type EmbeddingRequest,
  bodySchemaOf,
  CHAT_REQUEST_SCHEMA,
  COMPLETION_REQUEST_SCHEMA,
  type FieldKind,
  type JsonSchema,
  type PreparedRequest,
  type PreprocessorOptions,
} from './preprocess/index.js';
