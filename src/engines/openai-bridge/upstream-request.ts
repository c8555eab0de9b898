// PreprocessedRequest → the body of an OpenAI-compatible request. Token-in sends the prompt's ids
// to /v1/completions (vLLM, SGLang and llama.cpp take a token array) and asks for the output ids
// back; text-in sends the chat's messages, tools and tool choice to /v1/chat/completions (the
// engine applies its own template and parsers), or the prompt's text to /v1/completions for a
// completions request. A short unary request asks for a non-streamed answer (see `whole`).
import type { PreprocessedRequest } from '../../protocols/index.js';

export type UpstreamApi = 'completions' | 'chat';

export interface UpstreamCall {
  api: UpstreamApi;
  path: string;
  /** The body's fields but a token-in prompt. */
  body: Record<string, unknown>;
  /** Token-in: the prompt's ids, sent as the body's last field `prompt` (request-bytes.ts writes them). */
  promptIds: readonly number[] | null;
  /** The answer comes as one JSON body (`stream: false`), not as server-sent events. */
  whole: boolean;
}

/**
 * The most tokens a request may ask for and still be answered whole. A non-streamed answer says
 * nothing until it is done: a long one would look like a stuck worker to the frontend's silence
 * checks (30 s without output by default) and outlast the upstream timeout, which bounds its head.
 */
const WHOLE_ANSWER_MAX_TOKENS = 256;

/** The client awaits one answer and it is short: one JSON body costs less to read than its events. */
function wantsWhole(req: PreprocessedRequest): boolean {
  const max = req.stop_conditions.max_tokens;
  return req.unary === true && max != null && max <= WHOLE_ANSWER_MAX_TOKENS;
}

/**
 * The body's fields, set only when they have a value. An object built by assignment keeps a fast
 * shape; one spread from an object literal of `undefined`s was several times slower to build and
 * to serialize than the rest of the call (bench/RESULTS.md).
 */
type Body = Record<string, unknown>;

function put(body: Body, field: string, value: unknown): void {
  if (value != null) body[field] = value;
}

/** The fields every API shares: sampling, limits, streaming with usage unless the answer comes `whole`. */
function commonFields(req: PreprocessedRequest, model: string, whole: boolean): Body {
  const s = req.sampling_options;
  const stop = req.stop_conditions;
  const body: Body = whole ? { model, stream: false } : { model, stream: true, stream_options: { include_usage: true } };
  put(body, 'max_tokens', stop.max_tokens);
  put(body, 'min_tokens', stop.min_tokens);
  put(body, 'ignore_eos', stop.ignore_eos);
  if (stop.stop_token_ids?.length) body.stop_token_ids = stop.stop_token_ids;
  put(body, 'temperature', s.temperature);
  put(body, 'top_p', s.top_p);
  put(body, 'top_k', s.top_k);
  put(body, 'min_p', s.min_p);
  put(body, 'seed', s.seed);
  put(body, 'presence_penalty', s.presence_penalty);
  put(body, 'frequency_penalty', s.frequency_penalty);
  put(body, 'repetition_penalty', s.repetition_penalty);
  put(body, 'skip_special_tokens', req.output_options.skip_special_tokens);
  const guided = s.guided_decoding;
  // vLLM's request fields for the same constraints; vLLM takes a structural tag as JSON text.
  if (guided) {
    for (const [field, value] of Object.entries(guided)) {
      if (value == null || !(field in GUIDED_FIELDS)) continue;
      body[GUIDED_FIELDS[field]!] = field === 'structural_tag' && typeof value === 'object' ? JSON.stringify(value) : value;
    }
  }
  return body;
}

const GUIDED_FIELDS: Readonly<Record<string, string>> = {
  json: 'guided_json',
  regex: 'guided_regex',
  choice: 'guided_choice',
  grammar: 'guided_grammar',
  structural_tag: 'structural_tag',
  backend: 'guided_decoding_backend',
  whitespace_pattern: 'guided_whitespace_pattern',
};

/**
 * Token-in: the frontend keeps stop strings (it detokenizes), so only stop ids go up. `return_token_ids`
 * (vLLM ≥ 0.10.2) brings the output ids back; with logprobs, `return_tokens_as_token_ids` names the
 * alternatives by id too. A request the frontend may stop itself (a stop string, a visible stop
 * id) streams, so that stopping it stops the engine.
 */
export function tokenCompletionsCall(req: PreprocessedRequest, model: string): UpstreamCall {
  const stop = req.stop_conditions;
  const whole = wantsWhole(req) && !stop.stop?.length && !stop.stop_token_ids_visible?.length;
  const body = commonFields(req, model, whole);
  body.return_token_ids = true;
  const logprobs = req.output_options.logprobs;
  if (logprobs != null) {
    body.logprobs = logprobs;
    body.return_tokens_as_token_ids = true;
  }
  return { api: 'completions', path: '/v1/completions', body, promptIds: req.token_ids, whole };
}

/** Text-in: stop strings go to the engine, which decodes; the chat's messages when the frontend forwarded them. */
export function textCall(req: PreprocessedRequest, model: string, promptText: string): UpstreamCall {
  const whole = wantsWhole(req);
  const body = commonFields(req, model, whole);
  if (req.stop_conditions.stop?.length) body.stop = req.stop_conditions.stop;
  const chat = req.extra_args;
  const logprobs = req.output_options.logprobs;
  if (!Array.isArray(chat?.messages)) {
    body.prompt = promptText;
    put(body, 'logprobs', logprobs);
    return { api: 'completions', path: '/v1/completions', body, promptIds: null, whole };
  }
  body.messages = chat.messages;
  // The engine's own tool parser and guided decoding serve them.
  if (Array.isArray(chat.tools) && chat.tools.length > 0) body.tools = chat.tools;
  put(body, 'tool_choice', chat.tool_choice);
  put(body, 'parallel_tool_calls', chat.parallel_tool_calls);
  // vLLM's and SGLang's name for the template's extra variables (e.g. enable_thinking).
  put(body, 'chat_template_kwargs', chat.chat_template_args);
  if (logprobs != null) {
    body.logprobs = true;
    if (logprobs > 0) body.top_logprobs = logprobs;
  }
  return { api: 'chat', path: '/v1/chat/completions', body, promptIds: null, whole };
}
