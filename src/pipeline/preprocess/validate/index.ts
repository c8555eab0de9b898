// Request validation for chat and completions: each field's shape and rules in its own module
// (messages, tools, response-format, prompt, sampling, nvext, template-args, root), the order
// upstream checks them in chat.ts and completion.ts; the size limits are request-limits.ts, the
// checks against the model's card (template media, context window) the preprocessor's.
export { validateChatRequest } from './chat.js';
export { checkCompletionRequest, validateCompletionRequest } from './completion.js';
export { CHAT_FIELDS, COMPLETION_FIELDS, NVEXT_FIELDS } from './fields.js';
export { honouredNvext } from './nvext.js';
export { DEFAULT_MAX_OUTPUT_TOKENS, type ValidationOptions } from './options.js';
export { promptBatchSize } from './prompt.js';
export { checkModel, checkModeration, checkUser } from './root.js';
export { MAX_STOP_SEQUENCES } from './sampling.js';
