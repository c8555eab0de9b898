// The model's tokenizer: the native core with the fast encoder beside it, one load per file, and
// the prompt prefix cache.
export { DEFAULT_FAST_BPE_MAX_CHARS, HfTokenizer, type TokenizerOptions } from './tokenizer.js';
export { fileVersion, prepareTokenizerFile, tokenizerFile, tokenizerFileLoaded, type PreparedTokenizerFile, type TokenizerFile } from './tokenizer-file.js';
export { boundaryTokensOf, PrefixTokenCache, type AddedTokenJson, type BoundaryToken, type PromptCuts } from './prefix-cache.js';
