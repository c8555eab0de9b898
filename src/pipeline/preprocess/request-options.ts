// Maps a validated OpenAI request onto the engine's option blocks: stop conditions, sampling,
// output options, routing hints and extra args (reference/http.md §4.2 step 4).

import type {
  ChatCompletionRequest,
  CompletionRequest,
  NvExt,
  OutputOptions,
  RoutingHints,
  SamplingOptions,
  StopConditions,
} from '../../protocols/index.js';
import type { StructuralTag } from '../structural-tags/index.js';
import { toolChoiceSchema } from './tool-choice-schema.js';
import { RL_PASSTHROUGH_FIELDS } from './validate/rl-fields.js';

type AnyRequest = ChatCompletionRequest | CompletionRequest;

function isChat(req: AnyRequest): req is ChatCompletionRequest {
  return 'messages' in req;
}

/** `max_tokens` left null here is filled from the context window once the prompt length is known. */
export function stopConditions(req: AnyRequest, eosTokenIds: readonly number[]): StopConditions {
  const stop = req.stop;
  const stopStrings = typeof stop === 'string' ? [stop] : Array.isArray(stop) && typeof stop[0] === 'string' ? (stop as string[]) : null;
  const stopIds = Array.isArray(stop) && typeof stop[0] === 'number' ? (stop as number[]) : req.stop_token_ids ?? null;
  const ignoreEos = req.ignore_eos === true;
  const maxTokens = (isChat(req) ? req.max_completion_tokens : undefined) ?? req.max_tokens ?? null;
  return {
    max_tokens: maxTokens,
    // ignore_eos generates to max_tokens: no stop strings, no hidden EOS stops.
    stop: ignoreEos ? null : stopStrings,
    stop_token_ids: stopIds,
    stop_token_ids_hidden: ignoreEos ? null : [...eosTokenIds],
    min_tokens: req.min_tokens ?? null,
    ignore_eos: req.ignore_eos ?? null,
    max_thinking_tokens: req.nvext?.max_thinking_tokens ?? null,
  };
}

/** `toolTag`: the structural tag of the request's tool calls, which replaces the tool choice's JSON schema. */
export function samplingOptions(req: AnyRequest, toolTag?: StructuralTag): SamplingOptions {
  const greedy = req.nvext?.greed_sampling === true;
  const options: SamplingOptions = {
    n: req.n ?? null,
    best_of: isChat(req) ? null : req.best_of ?? null,
    presence_penalty: greedy ? null : req.presence_penalty ?? null,
    frequency_penalty: greedy ? null : req.frequency_penalty ?? null,
    repetition_penalty: greedy ? null : req.repetition_penalty ?? null,
    temperature: greedy ? 0 : req.temperature ?? null,
    top_p: greedy ? null : req.top_p ?? null,
    // 0 and -1 both mean "all tokens"; engines expect -1.
    top_k: greedy ? null : req.top_k === 0 ? -1 : req.top_k ?? null,
    min_p: greedy ? null : req.min_p ?? null,
    seed: req.seed ?? null,
    include_stop_str_in_output: req.include_stop_str_in_output ?? null,
    detokenize: req.detokenize ?? null,
    allowed_token_ids: req.allowed_token_ids ?? null,
    bad_words_token_ids: req.bad_words_token_ids ?? null,
    guided_decoding: guidedDecoding(req, toolTag),
  };
  return options;
}

/** The guided-decoding block, or null when no constraint is set (a lone modifier engages nothing). */
function guidedDecoding(req: AnyRequest, toolTag: StructuralTag | undefined): Record<string, unknown> | null {
  let json = req.guided_json ?? (isChat(req) && toolTag === undefined ? toolChoiceSchema(req) : null);
  // A tool-call tag is taken only where no response format constrains the answer, or a forced choice overrides it.
  if (json === null && isChat(req) && req.response_format && toolTag === undefined) {
    const format = req.response_format;
    if (format.type === 'json_object') json = { type: 'object' };
    if (format.type === 'json_schema') json = format.json_schema.schema ?? null;
  }
  const regex = req.guided_regex ?? null;
  const choice = req.guided_choice ?? null;
  const grammar = req.guided_grammar ?? null;
  const structuralTag = req.structural_tag ?? toolTag ?? null;
  // Most requests set none: they build no block at all.
  if (json === null && regex === null && choice === null && grammar === null && structuralTag === null) return null;
  return {
    json,
    regex,
    choice,
    grammar,
    structural_tag: structuralTag,
    backend: req.guided_decoding_backend ?? null,
    whitespace_pattern: req.guided_whitespace_pattern ?? null,
  };
}

export function outputOptions(req: AnyRequest): OutputOptions {
  let logprobs: number | null;
  let promptLogprobs = req.prompt_logprobs ?? null;
  if (isChat(req)) {
    logprobs = req.logprobs === true ? req.top_logprobs ?? 1 : null;
  } else {
    logprobs = req.logprobs ?? null;
    if (req.echo === true) promptLogprobs ??= 1;
  }
  return {
    logprobs,
    prompt_logprobs: promptLogprobs,
    skip_special_tokens: req.skip_special_tokens ?? true,
    formatted_prompt: null,
    return_tokens_as_token_ids: req.return_tokens_as_token_ids ?? null,
  };
}

/** nvext.cache_salt wins; the root `cache_salt` is a legacy fallback. Empty strings count as absent. */
export function cacheSalt(nvext: NvExt | null, rootSalt: string | null | undefined): string | null {
  return nvext?.cache_salt || rootSalt || null;
}

export function routingHints(nvext: NvExt | null | undefined, salt: string | null): RoutingHints | null {
  if (!nvext && salt === null) return null;
  const hints = nvext?.agent_hints;
  const routing: RoutingHints = {
    backend_instance_id: nvext?.backend_instance_id ?? null,
    prefill_worker_id: nvext?.prefill_worker_id ?? null,
    decode_worker_id: nvext?.decode_worker_id ?? null,
    dp_rank: nvext?.dp_rank ?? null,
    prefill_dp_rank: nvext?.prefill_dp_rank ?? null,
    expected_output_tokens: hints?.osl ?? null,
    lora_name: null,
    cache_salt: salt,
    priority: hints?.priority ?? null,
    session_id: nvext?.session_id ?? null,
  };
  // Only a header sets it; a request without one carries no such key.
  if (nvext?.policy_class) routing.policy_class = nvext.policy_class;
  return routing;
}

/** What the worker may need beyond the typed blocks: requested response fields and passthroughs. */
export function extraArgs(req: AnyRequest, salt: string | null): Record<string, unknown> | null {
  // Made at the first field: most requests carry none.
  let extra: Record<string, unknown> | null = null;
  if (req.nvext?.extra_fields?.length) (extra ??= {}).extra_fields = req.nvext.extra_fields;
  if (salt !== null) (extra ??= {}).cache_salt = salt;
  if (req.logprob_token_ids) (extra ??= {}).logprob_token_ids = req.logprob_token_ids;
  if (isChat(req) && req.media_io_kwargs) (extra ??= {}).media_io_kwargs = req.media_io_kwargs;
  if (isChat(req)) {
    for (let i = 0; i < RL_PASSTHROUGH_FIELDS.length; i++) {
      const field = RL_PASSTHROUGH_FIELDS[i]!;
      if (req[field] != null) (extra ??= {})[field] = req[field];
    }
  }
  return extra;
}
