// What a deployment sets for request validation (the served model's preprocessor options).

import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../request-limits.js';

export const DEFAULT_MAX_OUTPUT_TOKENS = 1_048_576;

export interface ValidationOptions {
  /** Largest accepted max_tokens (`DYN_MAX_OUTPUT_TOKENS`); default 1 048 576. */
  maxOutputTokens?: number;
  /** `DYN_IGNORE_OPENAI_FE_UNSUPPORTED_FIELDS`: drop unknown root fields instead of rejecting them. */
  ignoreUnsupportedFields?: boolean;
  /** When false, nvext is accepted but only its cache_salt is honoured. Default true. */
  nvextEnabled?: boolean;
  /** `DYN_REJECT_MEDIA_INPUTS`: media kinds (image, video, audio) this deployment refuses. */
  rejectMediaInputs?: readonly string[];
  /** Size limits checked before the per-item checks, the template and the tokenizer. */
  limits?: RequestLimits;
}

export function outputTokenLimit(opts: ValidationOptions): number {
  return opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
}

export function limitsOf(opts: ValidationOptions): RequestLimits {
  return opts.limits ?? DEFAULT_REQUEST_LIMITS;
}
