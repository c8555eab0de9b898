export { generateChoices, type GenerationTarget, type PromptRun } from './generate.js';
export { mergeAsync } from './merge-async.js';
export { TokenTable, decodeStream, type DecodedStep } from './postprocess/index.js';
export {
  Preprocessor,
  HfTokenizer,
  validateChatRequest,
  validateCompletionRequest,
  type PreparedRequest,
  type PreprocessorOptions,
} from './preprocess/index.js';
