// The root fields each API accepts and their JSON types. A root field not listed here is
// "unsupported" (400 unless ignored). Fields with structured shapes (messages, tools, stop,
// prompt, ...) are `any` here and checked by their own validators.

import type { FieldKind } from '../json-types.js';
import { RL_CHAT_FIELDS } from './rl-fields.js';

/** Non-OpenAI fields tolerated for backend-specific handling; type-checked with their own messages. */
export const PASSTHROUGH_FIELDS = [
  'cache_salt',
  'stop_token_ids',
  'detokenize',
  'allowed_token_ids',
  'bad_words_token_ids',
  'logprob_token_ids',
] as const;

/** Root-level extensions shared by chat and completions (upstream CommonExt). */
const COMMON_EXT: Record<string, FieldKind> = {
  ignore_eos: 'bool',
  min_tokens: 'uint',
  top_k: 'int',
  min_p: 'number',
  repetition_penalty: 'number',
  include_stop_str_in_output: 'bool',
  guided_json: 'any',
  guided_regex: 'string',
  guided_grammar: 'string',
  guided_choice: 'string[]',
  guided_decoding_backend: 'string',
  guided_whitespace_pattern: 'string',
  structural_tag: 'string',
  skip_special_tokens: 'bool',
  prompt_logprobs: 'uint',
  add_generation_prompt: 'bool',
  continue_final_message: 'bool',
};

const SHARED: Record<string, FieldKind> = {
  model: 'string',
  stream: 'bool',
  stream_options: 'object',
  n: 'uint',
  temperature: 'number',
  top_p: 'number',
  frequency_penalty: 'number',
  presence_penalty: 'number',
  logit_bias: 'object',
  max_tokens: 'uint',
  stop: 'any',
  seed: 'int',
  user: 'string',
  metadata: 'object',
  nvext: 'any',
  return_tokens_as_token_ids: 'bool',
  ...COMMON_EXT,
  ...Object.fromEntries(PASSTHROUGH_FIELDS.map((f) => [f, 'any' as const])),
};

export const CHAT_FIELDS: Record<string, FieldKind> = {
  ...SHARED,
  messages: 'any',
  max_completion_tokens: 'uint',
  logprobs: 'bool',
  top_logprobs: 'uint',
  tools: 'any',
  tool_choice: 'any',
  parallel_tool_calls: 'bool',
  response_format: 'any',
  reasoning_effort: 'string',
  chat_template_args: 'object',
  chat_template_kwargs: 'object',
  media_io_kwargs: 'object',
  thinking: 'any',
  store: 'bool',
  modalities: 'string[]',
  service_tier: 'string',
  prediction: 'any',
  audio: 'any',
  web_search_options: 'any',
  safety_identifier: 'string',
  prompt_cache_key: 'string',
  prompt_cache_options: 'object',
  prompt_cache_retention: 'string',
  moderation: 'any',
  verbosity: 'string',
  // Deprecated: recognised so they get their 501, not "unsupported parameter".
  function_call: 'any',
  functions: 'any',
  ...RL_CHAT_FIELDS,
};

export const COMPLETION_FIELDS: Record<string, FieldKind> = {
  ...SHARED,
  prompt: 'any',
  prompt_embeds: 'string',
  suffix: 'string',
  echo: 'bool',
  logprobs: 'uint',
  best_of: 'uint',
};

/** nvext keys in upstream's declaration order (it is the order serde lists them in errors). */
export const NVEXT_FIELDS: Record<string, FieldKind> = {
  greed_sampling: 'bool',
  use_raw_prompt: 'bool',
  annotations: 'string[]',
  backend_instance_id: 'u64',
  token_data: 'uint[]',
  max_thinking_tokens: 'uint',
  cache_salt: 'string',
  extra_fields: 'string[]',
  metadata_upload: 'object',
  prefill_worker_id: 'u64',
  decode_worker_id: 'u64',
  dp_rank: 'uint',
  prefill_dp_rank: 'uint',
  agent_hints: 'object',
  request_timestamp_ms: 'number',
  routing_constraints: 'object',
  router: 'object',
  session_id: 'string',
};
