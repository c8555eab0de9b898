export { ChatTemplate, type ChatTemplateOptions } from './chat-template.js';
export { Preprocessor, type PreparedRequest, type PreprocessorOptions } from './preprocessor.js';
export { HfTokenizer } from './tokenizer.js';
export { validateChatRequest, validateCompletionRequest, promptBatchSize, type ValidationOptions } from './validate.js';
export { DEFAULT_MAX_OUTPUT_TOKENS } from './validate-rules.js';
export { bodySchemaOf, CHAT_REQUEST_SCHEMA, COMPLETION_REQUEST_SCHEMA, type JsonSchema } from './request-schemas.js';
export type { FieldKind } from './json-types.js';
export { MEDIA_KIND_OF_PART, templateMediaKinds, type MediaKind } from './media-parts.js';
export { validateEmbeddingRequest, validateImageRequest, validateVideoRequest, type EmbeddingRequest } from './media-requests.js';
