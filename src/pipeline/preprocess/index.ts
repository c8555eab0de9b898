export { ChatTemplate, type ChatTemplateOptions } from './chat-template.js';
export { Preprocessor, type PreparedRequest, type PreprocessorOptions } from './preprocessor.js';
export {
  boundaryTokensOf,
  DEFAULT_FAST_BPE_MAX_CHARS,
  HfTokenizer,
  PrefixTokenCache,
  tokenizerFile,
  tokenizerFileLoaded,
  fileVersion,
  prepareTokenizerFile,
  type PreparedTokenizerFile,
  type AddedTokenJson,
  type BoundaryToken,
  type PromptCuts,
  type TokenizerFile,
  type TokenizerOptions,
} from './tokenizer/index.js';
export { loadFastBpe, MAX_PIECE_CHARS, type FastBpeEncoder, type FastBpeLoad } from './fast-bpe/index.js';
export { DEFAULT_OFFLOAD_MIN_CHARS, PreprocessPool } from './preprocess-pool.js';
export {
  checkCompletionRequest,
  checkModeration,
  DEFAULT_MAX_OUTPUT_TOKENS,
  promptBatchSize,
  validateChatRequest,
  validateCompletionRequest,
  type ValidationOptions,
} from './validate/index.js';
export { bodySchemaOf, CHAT_REQUEST_SCHEMA, COMPLETION_REQUEST_SCHEMA, type JsonSchema } from './request-schemas.js';
export type { FieldKind } from './json-types.js';
export { checkJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
export { checkBodyLimits, DEFAULT_REQUEST_LIMITS, type RequestLimits } from './request-limits.js';
export { MEDIA_KIND_OF_PART, templateMediaKinds, type MediaKind } from './media-parts.js';
export { validateEmbeddingRequest, validateImageRequest, validateVideoRequest, type EmbeddingRequest } from './media-requests.js';
export { routingFromHeaders, type HeaderLookup, type HeaderRouting } from './routing-headers.js';
