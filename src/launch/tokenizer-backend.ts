// The model's tokenizer, by the `--tokenizer` backend name, with `--tokenizer-fallback` and the
// prompt prefix cache (DYN_TOKENIZER_CACHE, on by default as upstream's L1 cache; always on for
// fastokens).

import type { Config } from '../config/index.js';
import { HfTokenizer, PrefixTokenCache, tokenizerFile } from '../pipeline/index.js';

type Warn = (message: string) => void;

interface BackendInput {
  tokenizerJsonPath: string;
  config: Config;
  warn: Warn;
}

type BackendName = Config['tokenizer'];

const BACKENDS: Record<BackendName, (input: BackendInput) => HfTokenizer> = {
  default: ({ tokenizerJsonPath, config, warn }) =>
    new HfTokenizer(tokenizerJsonPath, { prefixCache: config.tokenizerCache ? optionalPrefixCache(tokenizerJsonPath, config, warn) : null, warn }),
  // No Node binding of the fastokens library exists; the fastest path measured here is the fast
  // BPE encoder every backend has, plus the prefix cache (bench/RESULTS.md, tokenizer backends).
  fastokens: fastestPath,
  // Baseten's tokenizer is a Rust library with no Node binding either: the same fastest path.
  basetenkenizer: fastestPath,
};

function fastestPath({ tokenizerJsonPath, config, warn }: BackendInput): HfTokenizer {
  return new HfTokenizer(tokenizerJsonPath, { prefixCache: prefixCache(tokenizerJsonPath, config), warn });
}

/** The tokenizer of `--tokenizer`; a backend that cannot load the file falls back to the default one unless told not to. */
export function createTokenizer(tokenizerJsonPath: string, config: Config, warn: Warn): HfTokenizer {
  const name: BackendName = config.tokenizer;
  try {
    return BACKENDS[name]({ tokenizerJsonPath, config, warn });
  } catch (err) {
    const why = `--tokenizer ${name} cannot load ${tokenizerJsonPath}: ${(err as Error).message}`;
    if (name === 'default' || !config.tokenizerFallback) throw new Error(why, { cause: err });
    warn(`${why}; using the default tokenizer (--tokenizer-fallback)`);
    return BACKENDS.default({ tokenizerJsonPath, config, warn });
  }
}

/** Prompts shorter than this pass by the cache: it costs them more than it saves (bench/RESULTS.md). */
const PREFIX_CACHE_MIN_CHARS = 1024;

function prefixCache(tokenizerJsonPath: string, config: Config): PrefixTokenCache {
  return new PrefixTokenCache(tokenizerFile(tokenizerJsonPath).boundaryTokens, config.tokenizerCacheMb * 1024 * 1024, PREFIX_CACHE_MIN_CHARS);
}

function optionalPrefixCache(tokenizerJsonPath: string, config: Config, warn: Warn): PrefixTokenCache | null {
  try {
    return prefixCache(tokenizerJsonPath, config);
  } catch (err) {
    warn(`DYN_TOKENIZER_CACHE: no prefix cache for ${tokenizerJsonPath}: ${(err as Error).message}`);
    return null;
  }
}
