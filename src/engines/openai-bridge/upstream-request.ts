// PreprocessedRequest → the body of an OpenAI-compatible request. Token-in sends the prompt's ids
// to /v1/completions (vLLM, SGLang and llama.cpp take a token array) and asks for the output ids
// back; text-in sends the chat's messages, tools and tool choice to /v1/chat/completions (the
// engine applies its own template and parsers), or the prompt's text to /v1/completions for a
// completions request.
import type { PreprocessedRequest } from '../../protocols/index.js';

export type UpstreamApi = 'completions' | 'chat';

export interface UpstreamCall {
  api: UpstreamApi;
  path: string;
  body: Record<string, unknown>;
}

/** The fields every API shares: sampling, limits, streaming with usage. */
function commonFields(req: PreprocessedRequest, model: string): Record<string, unknown> {
  const s = req.sampling_options;
  const stop = req.stop_conditions;
  const body: Record<string, unknown> = {
    model,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: stop.max_tokens ?? undefined,
    min_tokens: stop.min_tokens ?? undefined,
    ignore_eos: stop.ignore_eos ?? undefined,
    stop_token_ids: stop.stop_token_ids?.length ? stop.stop_token_ids : undefined,
    temperature: s.temperature ?? undefined,
    top_p: s.top_p ?? undefined,
    top_k: s.top_k ?? undefined,
    min_p: s.min_p ?? undefined,
    seed: s.seed ?? undefined,
    presence_penalty: s.presence_penalty ?? undefined,
    frequency_penalty: s.frequency_penalty ?? undefined,
    repetition_penalty: s.repetition_penalty ?? undefined,
    skip_special_tokens: req.output_options.skip_special_tokens ?? undefined,
  };
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
 * alternatives by id too.
 */
export function tokenCompletionsCall(req: PreprocessedRequest, model: string): UpstreamCall {
  const logprobs = req.output_options.logprobs;
  return {
    api: 'completions',
    path: '/v1/completions',
    body: {
      ...commonFields(req, model),
      prompt: req.token_ids,
      return_token_ids: true,
      logprobs: logprobs ?? undefined,
      return_tokens_as_token_ids: logprobs != null ? true : undefined,
    },
  };
}

/** Text-in: stop strings go to the engine, which decodes; the chat's messages when the frontend forwarded them. */
export function textCall(req: PreprocessedRequest, model: string, promptText: string): UpstreamCall {
  const common = { ...commonFields(req, model), stop: req.stop_conditions.stop?.length ? req.stop_conditions.stop : undefined };
  const chat = req.extra_args;
  if (Array.isArray(chat?.messages)) {
    const logprobs = req.output_options.logprobs;
    return {
      api: 'chat',
      path: '/v1/chat/completions',
      body: {
        ...common,
        messages: chat.messages,
        // The engine's own tool parser and guided decoding serve them.
        tools: Array.isArray(chat.tools) && chat.tools.length > 0 ? chat.tools : undefined,
        tool_choice: chat.tool_choice ?? undefined,
        parallel_tool_calls: chat.parallel_tool_calls ?? undefined,
        // vLLM's and SGLang's name for the template's extra variables (e.g. enable_thinking).
        chat_template_kwargs: chat.chat_template_args ?? undefined,
        logprobs: logprobs != null ? true : undefined,
        top_logprobs: logprobs != null && logprobs > 0 ? logprobs : undefined,
      },
    };
  }
  return { api: 'completions', path: '/v1/completions', body: { ...common, prompt: promptText, logprobs: req.output_options.logprobs ?? undefined } };
}
