// The body of POST /inference/v1/generate (vLLM's token-in, token-out request) as the completions
// request it runs as: its token ids are the prompt, its sampling_params the completion's fields.
// Fields upstream carries to vLLM that this frontend cannot honour are refused by name.
import { ValidationError } from '../../../protocols/index.js';
import { bodyObject, optionalBool, optionalObject, tokenIds, type Body } from './body-fields.js';

/** Sampling fields that mean the same on a completions request; the completions validator checks their types and ranges. */
const SAMPLING_AS_COMPLETION = [
  'n',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'seed',
  'stop',
  'stop_token_ids',
  'ignore_eos',
  'max_tokens',
  'min_tokens',
  'logprobs',
  'skip_special_tokens',
  'include_stop_str_in_output',
  'logit_bias',
  'allowed_token_ids',
  'detokenize',
] as const;

/** Top-level fields read here; the rest of upstream's (multimodal features, KV transfer) are refused. */
const TOP_LEVEL = new Set(['model', 'request_id', 'token_ids', 'sampling_params', 'stream', 'stream_options', 'cache_salt']);

export interface GenerateBody {
  /** The completions request body it runs as. */
  completion: Body;
  /** The body's own request id, answered when the client sent no `x-request-id`. */
  requestId?: string;
  includeUsage: boolean;
  /** Usage on every chunk, not only the last. */
  continuousUsage: boolean;
}

function positive(sampling: Body, field: string): void {
  const value = sampling[field];
  if (value === 0) throw new ValidationError(`\`sampling_params.${field}\` must be greater than zero`);
}

/** Upstream's own cross-field rules, named by their path under `sampling_params`. */
function checkSampling(sampling: Body): void {
  for (const [field, value] of Object.entries(sampling)) {
    if (value !== null && !(SAMPLING_AS_COMPLETION as readonly string[]).includes(field)) {
      throw new ValidationError(`\`sampling_params.${field}\` is not supported by this frontend`);
    }
  }
  positive(sampling, 'n');
  positive(sampling, 'max_tokens');
  const { min_tokens: min, max_tokens: max, logprobs, temperature, n } = sampling;
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    throw new ValidationError('`sampling_params.min_tokens` must not exceed `max_tokens`');
  }
  if (logprobs === -1) throw new ValidationError('`sampling_params.logprobs` = -1 (the whole vocabulary) is not supported; ask for a count');
  if (typeof temperature === 'number' && temperature < 1e-5 && typeof n === 'number' && n > 1) {
    throw new ValidationError('`sampling_params.n` must be one for greedy sampling');
  }
}

export function generateBody(raw: unknown): GenerateBody {
  const body = bodyObject(raw);
  // A client that writes every field sends null (and priority 0) for what it does not use.
  for (const [field, value] of Object.entries(body)) {
    const unused = value === null || (field === 'priority' && value === 0);
    if (!unused && !TOP_LEVEL.has(field)) throw new ValidationError(`\`${field}\` is not supported by this frontend`);
  }
  const prompt = tokenIds(body, 'token_ids', true);
  if (body.sampling_params === undefined) throw new ValidationError('`sampling_params` is required');
  const sampling = optionalObject(body, 'sampling_params') ?? {};
  checkSampling(sampling);
  const stream = optionalBool(body, 'stream', false);
  const options = optionalObject(body, 'stream_options');
  if (options && !stream) throw new ValidationError('`stream_options` requires `stream=true`');
  const requestId = body.request_id;
  if (requestId !== undefined && (typeof requestId !== 'string' || requestId.trim() === '')) {
    throw new ValidationError('`request_id` must be a non-empty string when supplied');
  }
  const includeUsage = options ? optionalBool(options, 'include_usage', false, 'stream_options.include_usage') : false;
  const continuous = options ? optionalBool(options, 'continuous_usage_stats', false, 'stream_options.continuous_usage_stats') : false;
  const completion: Body = { model: body.model, prompt, stream };
  for (const field of SAMPLING_AS_COMPLETION) if (sampling[field] !== undefined) completion[field] = sampling[field];
  if (body.cache_salt !== undefined) completion.cache_salt = body.cache_salt;
  return { completion, requestId, includeUsage, continuousUsage: includeUsage && continuous };
}
