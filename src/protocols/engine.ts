// The one internal request/response pair shared by every frontend and every engine.
// Field names are snake_case because this is also the JSON the runtime protocol carries
// between frontend and workers: forwarding needs no renaming.

export interface StopConditions {
  max_tokens?: number | null;
  /** Stop strings, matched on decoded text by the frontend. */
  stop?: string[] | null;
  /** User stop token ids: hidden, finish `stop`, stop_reason = the id. */
  stop_token_ids?: number[] | null;
  /** Model EOS ids: hidden, finish `eos`. Cleared when ignore_eos. */
  stop_token_ids_hidden?: number[] | null;
  /** Stop token ids whose text stays in the output (e.g. tool-call end tokens); stop_reason = the id. */
  stop_token_ids_visible?: number[] | null;
  min_tokens?: number | null;
  ignore_eos?: boolean | null;
  max_thinking_tokens?: number | null;
}

export interface SamplingOptions {
  n?: number | null;
  best_of?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  repetition_penalty?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  min_p?: number | null;
  seed?: number | null;
  use_beam_search?: boolean | null;
  length_penalty?: number | null;
  include_stop_str_in_output?: boolean | null;
  detokenize?: boolean | null;
  allowed_token_ids?: number[] | null;
  bad_words_token_ids?: number[][] | null;
  guided_decoding?: Record<string, unknown> | null;
}

export interface OutputOptions {
  logprobs?: number | null;
  prompt_logprobs?: number | null;
  skip_special_tokens?: boolean | null;
  formatted_prompt?: boolean | null;
  return_tokens_as_token_ids?: boolean | null;
}

export interface RoutingHints {
  backend_instance_id?: string | number | null;
  prefill_worker_id?: string | number | null;
  decode_worker_id?: string | number | null;
  dp_rank?: number | null;
  prefill_dp_rank?: number | null;
  expected_output_tokens?: number | null;
  lora_name?: string | null;
  cache_salt?: string | null;
  priority?: number | null;
  /** The session of session affinity (`x-dynamo-session-id` or an agent's session header); the router reads it. */
  session_id?: string | null;
  /** The policy class (or family) the `x-dynamo-meta-policy-class` header asks for; the kv router's policy classes read it. */
  policy_class?: string | null;
}

/** One media item for the engine, as upstream's serde enum `MultimodalData::Url` serializes. */
export interface MultimodalData {
  Url: string;
}

/** Media by content part type (`image_url`, `video_url`, `audio_url`), in message order. */
export type MultimodalDataMap = Record<string, MultimodalData[]>;

/**
 * The annotation conditional disaggregation puts on a request it sends straight to a decode worker:
 * prefill there, locally, instead of expecting a prefill worker's hand-over (upstream's marker).
 */
export const BYPASS_REMOTE_PREFILL = 'x-bypass-remote-prefill';

export interface PreprocessedRequest {
  model: string;
  token_ids: number[];
  /** The chat's media, for the worker to fetch and encode; the prompt holds their placeholders. */
  multi_modal_data?: MultimodalDataMap | null;
  stop_conditions: StopConditions;
  sampling_options: SamplingOptions;
  output_options: OutputOptions;
  eos_token_ids: number[];
  mdc_sum?: string | null;
  annotations?: string[];
  routing?: RoutingHints | null;
  extra_args?: Record<string, unknown> | null;
  /** Disaggregated serving: what the prefill worker handed over, for the decode worker (upstream `PrefillResult`). */
  prefill_result?: PrefillResult | null;
  /**
   * True when the client gets one whole answer, not a stream: an engine may then produce it whole
   * (a bridge asks its server for a non-streamed answer). Absent for streams; a dynamo-ts field
   * other workers ignore.
   */
  unary?: boolean | null;
}

/** A prefill worker's hand-over: its transfer parameters, opaque to the frontend, and its prompt cache use. */
export interface PrefillResult {
  /** vLLM style: `{ kv_transfer_params: {...} }`; any JSON value (upstream's mocker sends a string). */
  disaggregated_params: unknown;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** Engine-level finish reasons as they travel on the wire. */
export type EngineFinishReason = 'eos' | 'stop' | 'length' | 'cancelled' | 'abort' | 'content_filter' | 'error';

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** One alternative at a generated position (upstream `TopLogprob`). */
export interface TopLogprob {
  /** 1 for the most likely token. */
  rank: number;
  /** -1 when the engine named the token by its text only (outputs with `text`). */
  token_id: number;
  token: string | null;
  logprob: number;
  /** The token's raw bytes, when its text alone is not complete UTF-8 (optional on the wire). */
  bytes?: number[] | null;
}

/**
 * One piece of one tool call. The first piece of a call carries `id` and `name` (`arguments` may be
 * ""); later pieces carry argument fragments. Concatenating a call's `arguments` over its pieces
 * gives exactly its final arguments JSON.
 */
export interface ToolCallDelta {
  /** The call's position among the choice's calls, from 0. */
  index: number;
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * One step of engine output. Python engines send only the keys they have; Rust ones send nulls.
 * An engine that decodes its tokens itself sends `text`: the frontend then neither detokenizes nor
 * applies stop strings, `tokens` names each generated token by its text (logprob entries follow
 * it), and `token_ids` only count the tokens. An engine that also parses its output (a text-in
 * bridge in front of vLLM's or SGLang's chat API) sends what it split off in `reasoning_content`
 * and `tool_calls`; the frontend carries those as they are and does not parse them again.
 */
export interface LLMEngineOutput {
  token_ids: number[];
  tokens?: (string | null)[] | null;
  text?: string | null;
  /** Reasoning text the engine split off this step (not in `text`). */
  reasoning_content?: string | null;
  /** Pieces of the tool calls the engine parsed in this step (not in `text`). */
  tool_calls?: ToolCallDelta[] | null;
  cum_log_probs?: number | null;
  /** Per token of `token_ids`: the sampled token's log probability (when the request asked for logprobs). */
  log_probs?: number[] | null;
  /** Per token of `token_ids`: the most likely alternatives, best first (num_tokens × top_logprobs). */
  top_logprobs?: TopLogprob[][] | null;
  finish_reason?: EngineFinishReason | null;
  stop_reason?: string | number | null;
  /** Choice index, for n > 1. */
  index?: number | null;
  completion_usage?: CompletionUsage | null;
  extra_args?: Record<string, unknown> | null;
  /** Opaque engine data; upstream reads `prompt_logprobs` from it. */
  engine_data?: Record<string, unknown> | null;
  /** A prefill worker's transfer parameters for the decode worker (disaggregated serving). */
  disaggregated_params?: unknown;
}

export interface GenerateContext {
  /** Unique per request (per choice, for n > 1 fan-out). */
  requestId: string;
  /**
   * Aborted when the client goes away: the engine must stop promptly. A caller that wants no more
   * of one stream (a local stop) closes it early (`return()`) instead, which must stop it as promptly.
   * Often a reused signal (streams/call-signals.ts): an engine that listens lets go of it when its
   * stream ends (`followAbort`/`unfollowAbort` follow it without an event listener), and does not
   * keep it past that.
   */
  signal: AbortSignal;
  /** Client-supplied request metadata (gRPC `x-dynamo-meta-*`, prefix stripped), when any. */
  metadata?: Readonly<Record<string, string>>;
  /**
   * Told of each re-send of the request to another worker once that attempt resolved (its first
   * output, its end or its failure), with the seconds since the failure that caused it.
   */
  migrated?(type: MigrationType, seconds: number): void;
  /**
   * Told when the router chose the instance for one attempt of this request, just before the
   * engine call. What it returns (only when someone observes calls, e.g. tracing) gives the trace
   * context the call carries to the worker and hears when the call ended.
   */
  dispatched?(dispatch: DispatchInfo): DispatchedCall | undefined;
  /** W3C trace context the engine call carries (request-plane headers `traceparent`/`tracestate`). */
  trace?: TraceHeaders;
}

/** W3C trace context headers. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/** The router's decision for one attempt of a request. */
export interface DispatchInfo {
  instanceId: bigint;
  /** The router mode that decided (`round-robin`, `kv`, ...). */
  routerMode: string;
  /** Blocks of the prompt predicted cached on the chosen instance; absent when the mode does not predict. */
  overlapBlocks?: number;
  /** `performance.now()` when the request entered the router, in milliseconds. */
  routingStartedAt: number;
}

/** One engine call being observed. */
export interface DispatchedCall {
  /** The trace context for the worker. */
  readonly trace?: TraceHeaders;
  /** The call's stream ended: with its error, or undefined when it completed or was stopped. */
  end(error?: unknown): void;
}

/** Upstream's `migration_type` label: the first worker failed before any output, or mid-stream. */
export type MigrationType = 'new_request' | 'ongoing_request';

/**
 * Anything that turns a PreprocessedRequest into a stream of engine outputs: an in-process engine,
 * a router in front of many workers, or a client of a remote worker.
 */
export interface EngineClient {
  generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput>;
}
