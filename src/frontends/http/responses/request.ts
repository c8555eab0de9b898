// A Responses request → the chat request the shared pipeline runs (reference/http.md §9.1), plus
// the settings the Response object echoes. Responses-only fields are checked here with their own
// names; what maps onto chat (temperature, top_p, tools, tool_choice, response_format) is then
// checked by the chat validator, as upstream converts before it validates.

import { NotImplementedError, ValidationError, type ChatMessage } from '../../../protocols/index.js';
import { inputMessages, storedInputItems } from './input-items.js';
import { chatToolChoice, chatTools, type OfferedTools } from './offered-tools.js';
import { checkModeration } from '../../../pipeline/index.js';
import { noteOrigin } from '../model-route/index.js';

type Body = Record<string, unknown>;

/** A Responses request, translated. */
export interface TranslatedRequest {
  /** The chat completions body for the preprocessor. */
  chat: Body;
  stream: boolean;
  /** The request settings the Response object repeats. */
  echo: Body;
  /** How a call to each offered tool is reported (function or custom tool call, namespace). */
  tools: OfferedTools;
  /** Whether the response is stored (`store`, true unless false). */
  store: boolean;
  /** The request's input items as a stored response lists them. */
  inputItems: Body[];
}

/** Fields that map onto the chat request. */
const MAPPED = [
  'model', 'input', 'instructions', 'tools', 'tool_choice', 'max_output_tokens', 'temperature', 'top_p', 'presence_penalty', 'frequency_penalty',
  'text', 'reasoning', 'parallel_tool_calls', 'user', 'stream', 'nvext',
];
/**
 * Fields accepted and echoed, or with nothing to do here (docs/api-fields.md): `store` and
 * `previous_response_id` (the route stores and looks up), account and caching hints,
 * `max_tool_calls` (it caps hosted tool calls, and none run here), `context_management`
 * (server-side compaction thresholds), and Codex's `client_metadata`.
 */
const ECHOED = [
  'metadata', 'store', 'previous_response_id', 'truncation', 'include', 'service_tier', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention',
  'prompt_cache_options', 'stream_options', 'max_tool_calls', 'context_management', 'client_metadata', 'top_logprobs',
];
/** Fields whose feature needs state or tooling this gateway does not have: 501 when set. */
const NOT_IMPLEMENTED: Record<string, string> = {
  conversation: '`conversation` is not supported: this gateway does not store conversations',
  prompt: '`prompt` (stored prompt templates) is not supported',
};
/** Every top-level field a Responses body may carry; the others are refused. */
export const RESPONSES_FIELDS: readonly string[] = [...MAPPED, ...ECHOED, 'background', 'moderation', ...Object.keys(NOT_IMPLEMENTED)];
const KNOWN = new Set(RESPONSES_FIELDS);
/** The fields answered with 501, and why. */
export const UNSUPPORTED_RESPONSES_FIELDS: Readonly<Record<string, string>> = NOT_IMPLEMENTED;

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** The requested model; a body without a usable one is a 400 naming `model`. */
export function responsesModelName(body: unknown): string {
  if (!isObject(body)) throw new ValidationError('The request body must be a JSON object');
  if (typeof body.model !== 'string' || body.model.trim() === '') throw new ValidationError('`model` is required and must be a non-empty string');
  return body.model;
}

/** The response a request continues: `previous_response_id`, checked; null when absent. */
export function previousResponseId(body: unknown): string | null {
  const id = isObject(body) ? body.previous_response_id : undefined;
  if (!present(id)) return null;
  if (typeof id !== 'string' || id === '') throw new ValidationError('`previous_response_id` must be a non-empty string');
  return id;
}

/** `earlier`: the items of the stored responses `previous_response_id` continues, read before `input`. */
export function translateResponsesRequest(raw: unknown, earlier: readonly Body[] = []): TranslatedRequest {
  responsesModelName(raw);
  const body = raw as Body;
  checkFields(body);
  if (body.input === undefined) throw new ValidationError('`input` is required');
  const messages: ChatMessage[] = [];
  if (present(body.instructions)) {
    if (typeof body.instructions !== 'string') throw new ValidationError('`instructions` must be a string');
    messages.push(noteOrigin({ role: 'system', content: body.instructions }, 'instructions'));
  }
  messages.push(...inputMessages(body.input, earlier));

  const chat: Body = { model: body.model, messages };
  const maxOutput = maxOutputTokens(body.max_output_tokens);
  if (maxOutput !== null) chat.max_tokens = maxOutput;
  for (const field of ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'parallel_tool_calls', 'user', 'stream', 'nvext']) {
    if (present(body[field])) chat[field] = body[field];
  }
  const tools = chatTools(body.tools);
  const choice = present(body.tool_choice) ? chatToolChoice(body.tool_choice, tools.chat) : { choice: undefined, tools: tools.chat };
  if (choice.tools) chat.tools = choice.tools;
  if (choice.choice !== undefined) chat.tool_choice = choice.choice;
  const topLogprobs = logprobsWanted(body.top_logprobs);
  const format = responseFormat(body.text);
  if (format) chat.response_format = format;
  const reasoning = reasoningSettings(body.reasoning);
  if (typeof reasoning.effort === 'string') chat.reasoning_effort = reasoning.effort;

  return {
    chat,
    stream: body.stream === true,
    tools: tools.offered,
    store: body.store !== false,
    inputItems: storedInputItems(body.input),
    // Every request setting the Response object carries, as given, else its default (null where unset).
    echo: {
      instructions: body.instructions ?? null,
      max_output_tokens: maxOutput,
      max_tool_calls: body.max_tool_calls ?? null,
      metadata: body.metadata ?? {},
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: previousResponseId(body),
      conversation: null,
      prompt: null,
      prompt_cache_key: body.prompt_cache_key ?? null,
      prompt_cache_retention: body.prompt_cache_retention ?? null,
      reasoning,
      safety_identifier: body.safety_identifier ?? null,
      service_tier: body.service_tier ?? 'default',
      store: body.store !== false,
      temperature: body.temperature ?? 1,
      presence_penalty: body.presence_penalty ?? 0,
      frequency_penalty: body.frequency_penalty ?? 0,
      text: isObject(body.text) ? body.text : { format: { type: 'text' } },
      tool_choice: body.tool_choice ?? 'auto',
      tools: echoedTools(body.tools),
      top_logprobs: topLogprobs ?? 0,
      top_p: body.top_p ?? 1,
      truncation: body.truncation ?? 'disabled',
      user: body.user ?? null,
    },
  };
}

function checkFields(body: Body): void {
  const unknown = Object.keys(body).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw new ValidationError(`Unsupported parameter(s): ${unknown.map((k) => `\`${k}\``).join(', ')}`);
  for (const [field, message] of Object.entries(NOT_IMPLEMENTED)) {
    if (present(body[field])) throw new NotImplementedError(`Validation: ${message}`);
  }
  if (body.background === true) throw new NotImplementedError('Validation: `background: true` is not supported.');
  checkModeration(body.moderation);
  if (present(body.store) && typeof body.store !== 'boolean') throw new ValidationError('`store` must be a boolean');
  if (present(body.stream) && typeof body.stream !== 'boolean') throw new ValidationError('`stream` must be a boolean');
}

function maxOutputTokens(value: unknown): number | null {
  if (!present(value)) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ValidationError(`\`max_output_tokens\` must be an integer, got ${JSON.stringify(value)}`);
  if (value <= 0) throw new ValidationError(`\`max_output_tokens\` must be greater than 0, got ${value}`);
  return value;
}

/** The tools as the Response object lists them: function and custom tools with their `strict` (false: not enforced here). */
function echoedTools(tools: unknown): unknown[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((tool) => (isObject(tool) && tool.type === 'function' ? { ...tool, strict: tool.strict ?? false, description: tool.description ?? null, parameters: tool.parameters ?? null } : tool));
}

/** `top_logprobs`: 0 (none) is echoed; token logprobs on Responses are not built yet, so more is refused. */
function logprobsWanted(value: unknown): number | null {
  if (!present(value)) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 20) {
    throw new ValidationError(`\`top_logprobs\` must be an integer between 0 and 20, got ${JSON.stringify(value)}`);
  }
  if (value > 0) {
    throw new ValidationError('`top_logprobs` above 0 is not supported on /v1/responses yet: ask /v1/chat/completions with `logprobs` and `top_logprobs`');
  }
  return value;
}

/** `text.format` → chat's `response_format`, which the preprocessor turns into guided decoding. */
function responseFormat(text: unknown): Body | null {
  if (!present(text)) return null;
  if (!isObject(text)) throw new ValidationError('`text` must be an object');
  const format = text.format;
  if (!present(format)) return null;
  if (!isObject(format)) throw new ValidationError('`text.format` must be an object');
  const convert = typeof format.type === 'string' ? FORMATS[format.type] : undefined;
  if (!convert) {
    throw new ValidationError(`\`text.format.type\` must be one of ${Object.keys(FORMATS).join(', ')}, got ${JSON.stringify(format.type)}`);
  }
  return convert(format);
}

const FORMATS: Record<string, (format: Body) => Body | null> = {
  text: () => null,
  json_object: () => ({ type: 'json_object' }),
  json_schema: (format) => {
    if (typeof format.name !== 'string' || format.name === '') throw new ValidationError('`text.format.name` is required for a json_schema format');
    if (!isObject(format.schema)) throw new ValidationError('`text.format.schema` must be a JSON object');
    const schema: Body = { name: format.name, schema: format.schema };
    for (const field of ['description', 'strict']) if (present(format[field])) schema[field] = format[field];
    return { type: 'json_schema', json_schema: schema };
  },
};

/** `reasoning`: its effort reaches the chat template; summaries come with the reasoning parsers. */
function reasoningSettings(reasoning: unknown): Body {
  if (!present(reasoning)) return { effort: null, summary: null };
  if (!isObject(reasoning)) throw new ValidationError('`reasoning` must be an object');
  if (present(reasoning.effort) && typeof reasoning.effort !== 'string') throw new ValidationError('`reasoning.effort` must be a string');
  return { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null };
}
