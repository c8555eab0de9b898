// OpenAI request shapes as this frontend accepts them: the OpenAI fields, the root-level
// extensions shared by chat and completions ("CommonExt"), the tolerated passthrough fields and
// `nvext`. Responses are built by the HTTP layer and are not described here.

export interface TextContentPart {
  type: 'text';
  text: string;
}

export interface ImageUrlContentPart {
  type: 'image_url';
  image_url: { url: string; detail?: string | null };
}

/** Any other part (`video_url`, `audio_url`, `input_audio`, ...) is kept as sent. */
export interface OtherContentPart {
  type: string;
  [key: string]: unknown;
}

export type ContentPart = TextContentPart | ImageUrlContentPart | OtherContentPart;

export interface ToolCallFunction {
  name: string;
  /** JSON text, as OpenAI sends it. */
  arguments: string;
}

export interface ToolCall {
  id?: string;
  type?: 'function';
  function: ToolCallFunction;
}

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: ChatRole;
  content?: string | ContentPart[] | null;
  name?: string | null;
  /** Assistant messages only. */
  tool_calls?: ToolCall[] | null;
  /** Tool messages only. */
  tool_call_id?: string;
  /** Earlier reasoning, which some templates render back. */
  reasoning_content?: string | null;
  [key: string]: unknown;
}

export interface FunctionDefinition {
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export interface ChatTool {
  type: 'function';
  function: FunctionDefinition;
}

export interface NamedToolChoice {
  type: 'function';
  function: { name: string };
}

export type ToolChoice = 'none' | 'auto' | 'required' | NamedToolChoice;

export interface JsonSchemaFormat {
  name: string;
  description?: string | null;
  schema?: unknown;
  strict?: boolean | null;
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: JsonSchemaFormat };

export interface StreamOptions {
  include_usage?: boolean | null;
  continuous_usage_stats?: boolean | null;
}

export interface AgentHints {
  priority?: number | null;
  strict_priority?: number | null;
  osl?: number | null;
  speculative_prefill?: boolean | null;
  /** Deprecated alias of priority. */
  latency_sensitivity?: number | null;
}

/** NVIDIA request extensions (`nvext`). Unknown keys are rejected. */
export interface NvExt {
  greed_sampling?: boolean | null;
  use_raw_prompt?: boolean | null;
  annotations?: string[] | null;
  /** u64: a number, or decimal digits when above 2^53. */
  backend_instance_id?: number | string | null;
  token_data?: number[] | null;
  max_thinking_tokens?: number | null;
  cache_salt?: string | null;
  extra_fields?: string[] | null;
  metadata_upload?: { url: string } | null;
  /** u64: a number, or decimal digits when above 2^53. */
  prefill_worker_id?: number | string | null;
  /** u64: a number, or decimal digits when above 2^53. */
  decode_worker_id?: number | string | null;
  dp_rank?: number | null;
  prefill_dp_rank?: number | null;
  agent_hints?: AgentHints | null;
  request_timestamp_ms?: number | null;
  routing_constraints?: {
    required_taints?: string[] | null;
    preferred_taints?: Record<string, number> | null;
  } | null;
  router?: { ttft_target?: number | null; itl_target?: number | null } | null;
  /** dynamo-ts: the session of session affinity; the `x-dynamo-session-id` header (and agents' session headers) set it. */
  session_id?: string | null;
  /** Set only by the `x-dynamo-meta-policy-class` header (the body has no such field): the kv router's policy class or family. */
  policy_class?: string | null;
}

/** Root-level extensions accepted on chat and completions. */
export interface CommonExt {
  ignore_eos?: boolean | null;
  min_tokens?: number | null;
  top_k?: number | null;
  min_p?: number | null;
  repetition_penalty?: number | null;
  include_stop_str_in_output?: boolean | null;
  guided_json?: unknown;
  guided_regex?: string | null;
  guided_grammar?: string | null;
  guided_choice?: string[] | null;
  guided_decoding_backend?: string | null;
  guided_whitespace_pattern?: string | null;
  structural_tag?: string | null;
  skip_special_tokens?: boolean | null;
  prompt_logprobs?: number | null;
  /** Chat only (rejected on completions). */
  add_generation_prompt?: boolean | null;
  /** Chat only (rejected on completions). */
  continue_final_message?: boolean | null;
}

/** Non-OpenAI root fields tolerated for backend-specific handling. */
export interface PassthroughFields {
  cache_salt?: string | null;
  stop_token_ids?: number[] | null;
  detokenize?: boolean | null;
  allowed_token_ids?: number[] | null;
  bad_words_token_ids?: number[][] | null;
  logprob_token_ids?: number[] | null;
}

/** `stop` may also carry token ids. */
export type Stop = string | string[] | number[];

interface SharedRequestFields extends CommonExt, PassthroughFields {
  model: string;
  stream?: boolean | null;
  stream_options?: StreamOptions | null;
  n?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  max_tokens?: number | null;
  stop?: Stop | null;
  seed?: number | null;
  user?: string | null;
  nvext?: NvExt | null;
  return_tokens_as_token_ids?: boolean | null;
}

/** Reinforcement-learning rollout extensions of chat (upstream's RL inference surface). */
export interface RlChatExt {
  /** Token-in: the prompt as token ids, instead of rendering the messages. */
  prompt_token_ids?: number[] | null;
  /** Legacy token-in spelling; validation moves it to `nvext.token_data`. */
  tokens?: number[] | null;
  /** Answer with `prompt_token_ids` and each choice's `token_ids`. */
  return_token_ids?: boolean | null;
  /** The weight version the caller expects; carried to the worker. */
  weight_version?: string | null;
  /** Keep only the prompt's last k tokens (-1: the context length). */
  truncate_prompt_tokens?: number | null;
  return_prompt_logprobs?: boolean | null;
  return_routed_experts?: boolean | null;
}

export interface ChatCompletionRequest extends SharedRequestFields, RlChatExt {
  messages: ChatMessage[];
  max_completion_tokens?: number | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  tools?: ChatTool[] | null;
  tool_choice?: ToolChoice | null;
  parallel_tool_calls?: boolean | null;
  response_format?: ResponseFormat | null;
  reasoning_effort?: string | null;
  /** Merged into the chat template context last. The `chat_template_kwargs` alias lands here. */
  chat_template_args?: Record<string, unknown> | null;
  media_io_kwargs?: Record<string, unknown> | null;
  thinking?: unknown;
  store?: boolean | null;
  metadata?: Record<string, unknown> | null;
  modalities?: string[] | null;
  service_tier?: string | null;
}

export type Prompt = string | string[] | number[] | number[][];

export interface CompletionRequest extends SharedRequestFields {
  prompt?: Prompt | null;
  prompt_embeds?: string | null;
  suffix?: string | null;
  echo?: boolean | null;
  /** Completions take a count of top logprobs (0..5). */
  logprobs?: number | null;
  best_of?: number | null;
  metadata?: Record<string, unknown> | null;
}
