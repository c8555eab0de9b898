// An Anthropic Messages request → the chat request the shared pipeline runs (reference/http.md
// §9.2, §5.6). Messages-only fields are checked here with their own names; what maps onto chat
// (temperature, top_p, top_k, tools, tool_choice, stop) is then checked by the chat validator, as
// upstream converts before it validates.

import { NotImplementedError, ValidationError, type ChatMessage } from '../../../protocols/index.js';
import { chatMessages, contentBlocks, isObject, requireString } from './content-blocks.js';
import { noteOrigin } from '../model-route/index.js';

type Body = Record<string, unknown>;

export interface MessagesTranslation {
  /** Claude Code's `x-anthropic-billing-header` system block is removed (--strip-anthropic-preamble). */
  stripPreamble: boolean;
}

/** A Messages request, translated. */
export interface TranslatedMessages {
  /** The chat completions body for the preprocessor. */
  chat: Body;
  stream: boolean;
  /** The user's stop sequences: a stop on one of them reads `stop_sequence`. */
  stopSequences: readonly string[];
}

/** Fields of Anthropic's Messages API that map onto chat. */
const MAPPED_FIELDS = [
  'model', 'messages', 'max_tokens', 'system', 'stop_sequences', 'stream', 'temperature', 'top_p', 'top_k', 'tools', 'tool_choice', 'thinking',
  'metadata', 'output_config', 'output_format', 'mcp_servers',
];
/**
 * Fields accepted with nothing to do here (docs/api-fields.md): prompt caching is automatic
 * (`cache_control`), `context_management` and `compaction` edit a context that would overflow (here
 * such a prompt is a 400 instead), `container` serves server tools (refused anyway), and the rest
 * are account, region, billing and beta bookkeeping of Anthropic's service.
 */
export const IGNORED_FIELDS: readonly string[] = [
  'cache_control', 'context_management', 'compaction', 'container', 'service_tier', 'inference_geo', 'speed', 'diagnostics', 'betas',
  'user_profile_id', 'workspace_id', 'billing_policy', 'fallbacks', 'fallback_credit_token', 'thread',
];
const ANTHROPIC_FIELDS = [...MAPPED_FIELDS, ...IGNORED_FIELDS];
/** dynamo-ts extensions: `seed` (deterministic sampling) and `nvext` (Dynamo's routing and engine extensions), as in chat. */
const EXTENSION_FIELDS = ['seed', 'nvext'];
/** Every top-level field a Messages body may carry; the others are refused. */
export const MESSAGES_FIELDS: readonly string[] = [...ANTHROPIC_FIELDS, ...EXTENSION_FIELDS];
const KNOWN = new Set(MESSAGES_FIELDS);
/** count_tokens takes the prompt's fields (and the bookkeeping a client sends along). */
export const COUNT_TOKENS_FIELDS: readonly string[] = [
  'model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'output_format', 'mcp_servers', 'nvext', ...IGNORED_FIELDS,
];
const COUNT_FIELDS = new Set(COUNT_TOKENS_FIELDS);

/** What Claude Code puts first in its system prompt; it changes per request, so it defeats prefix caching. */
const BILLING_HEADER = 'x-anthropic-billing-header:';

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** The requested model; a body without a usable one is a 400 naming `model`. */
export function messagesModelName(body: unknown): string {
  if (!isObject(body)) throw new ValidationError('The request body must be a JSON object');
  if (typeof body.model !== 'string' || body.model.trim() === '') throw new ValidationError('model: field required (a non-empty string)');
  return body.model;
}

export function translateMessagesRequest(raw: unknown, opts: MessagesTranslation): TranslatedMessages {
  messagesModelName(raw);
  const body = raw as Body;
  checkFields(body, KNOWN);
  const chat = promptChat(body, opts);
  const maxTokens = body.max_tokens;
  if (!present(maxTokens)) throw new ValidationError('max_tokens: field required');
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new ValidationError(`max_tokens: must be an integer greater than or equal to 1, got ${JSON.stringify(maxTokens)}`);
  }
  chat.max_tokens = maxTokens;
  if (present(body.stream) && typeof body.stream !== 'boolean') throw new ValidationError('stream: must be a boolean');
  for (const field of ['stream', 'temperature', 'top_p', 'top_k', 'seed']) if (present(body[field])) chat[field] = body[field];
  const stopSequences = stringList(body.stop_sequences, 'stop_sequences');
  if (stopSequences.length > 0) chat.stop = stopSequences;
  metadata(body.metadata, chat);
  return { chat, stream: body.stream === true, stopSequences };
}

/** The chat request of a count_tokens body: its prompt only. */
export function translateCountTokensRequest(raw: unknown, opts: MessagesTranslation): Body {
  messagesModelName(raw);
  const body = raw as Body;
  checkFields(body, COUNT_FIELDS);
  return promptChat(body, opts);
}

/** The fields that make the prompt: system, messages, tools and tool_choice, thinking. */
function promptChat(body: Body, opts: MessagesTranslation): Body {
  const messages: ChatMessage[] = [...systemMessages(body.system, opts), ...chatMessages(body.messages)];
  const chat: Body = { model: body.model, messages };
  const tools = chatTools(body.tools);
  if (tools) chat.tools = tools;
  if (present(body.tool_choice)) Object.assign(chat, chatToolChoice(body.tool_choice));
  if (present(body.thinking)) thinking(body.thinking, chat);
  if (present(body.output_config)) outputConfig(body.output_config, chat);
  if (present(body.output_format)) chat.response_format = jsonSchemaFormat(body.output_format, 'output_format');
  mcpServers(body.mcp_servers);
  if (present(body.nvext)) chat.nvext = body.nvext;
  return chat;
}

const EFFORTS = ['low', 'medium', 'high', 'max'];

/** `output_config`: its effort is the reasoning effort the template hears; its format guides the output. */
function outputConfig(value: unknown, chat: Body): void {
  if (!isObject(value)) throw new ValidationError('output_config: must be an object');
  if (present(value.effort)) {
    if (typeof value.effort !== 'string' || !EFFORTS.includes(value.effort)) throw new ValidationError(`output_config.effort: must be one of ${EFFORTS.join(', ')}`);
    chat.reasoning_effort = value.effort;
  }
  if (present(value.format)) chat.response_format = jsonSchemaFormat(value.format, 'output_config.format');
}

/** A structured-output format (`{type: "json_schema", schema}`) as chat's `response_format`. */
function jsonSchemaFormat(format: unknown, path: string): Body {
  if (!isObject(format) || format.type !== 'json_schema') throw new ValidationError(`${path}.type: must be "json_schema"`);
  if (!isObject(format.schema)) throw new ValidationError(`${path}.schema: must be a JSON schema object`);
  return { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } };
}

/** Remote MCP servers are connected by Anthropic's service; offering none is fine, any is refused. */
function mcpServers(value: unknown): void {
  if (!present(value)) return;
  if (!Array.isArray(value)) throw new ValidationError('mcp_servers: must be an array');
  if (value.length > 0) {
    throw new ValidationError('mcp_servers: remote MCP servers are not connected by this gateway; offer their tools as client tools instead');
  }
}

function checkFields(body: Body, known: ReadonlySet<string>): void {
  const unknown = Object.keys(body).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new ValidationError(`${unknown.join(', ')}: extra inputs are not permitted`);
}

function systemMessages(system: unknown, opts: MessagesTranslation): ChatMessage[] {
  if (!present(system)) return [];
  if (typeof system === 'string') return [noteOrigin({ role: 'system', content: system }, 'system')];
  const texts = contentBlocks(system, 'system').map((block, i) => {
    if (block.type !== 'text') throw new ValidationError(`system[${i}].type: system blocks must be text blocks`);
    return requireString(block, 'text', `system[${i}]`);
  });
  const kept = opts.stripPreamble ? texts.filter((text) => !text.startsWith(BILLING_HEADER)) : texts;
  return kept.length > 0 ? [noteOrigin({ role: 'system', content: kept.join('\n\n') }, 'system')] : [];
}

function stringList(value: unknown, field: string): string[] {
  if (!present(value)) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new ValidationError(`${field}: must be an array of strings`);
  return value;
}

/** Client tools (`{name, description, input_schema}`) as chat function tools; server tools are 501. */
function chatTools(tools: unknown): Body[] | null {
  if (!present(tools)) return null;
  if (!Array.isArray(tools)) throw new ValidationError('tools: must be an array');
  return tools.map((tool, i) => {
    const path = `tools[${i}]`;
    if (!isObject(tool)) throw new ValidationError(`${path}: must be an object`);
    if (present(tool.type) && tool.type !== 'custom') throw new NotImplementedError(`${path}: server tool type ${JSON.stringify(tool.type)} is not supported`);
    const name = requireString(tool, 'name', path);
    if (!present(tool.input_schema)) throw new ValidationError(`${path}.input_schema: field required`);
    if (!isObject(tool.input_schema)) throw new ValidationError(`${path}.input_schema: must be a JSON schema object`);
    // Chat's key order (name, description, parameters): templates render tools with tojson.
    const fn: Body = present(tool.description) ? { name, description: tool.description } : { name };
    fn.parameters = tool.input_schema;
    return { type: 'function', function: fn };
  });
}

/** Anthropic's tool_choice type → chat's tool_choice. */
const TOOL_CHOICES: Record<string, (choice: Body) => unknown> = {
  auto: () => 'auto',
  any: () => 'required',
  none: () => 'none',
  tool: (choice) => ({ type: 'function', function: { name: requireString(choice, 'name', 'tool_choice') } }),
};

function chatToolChoice(choice: unknown): Body {
  const convert = isObject(choice) && typeof choice.type === 'string' ? TOOL_CHOICES[choice.type] : undefined;
  if (!convert) throw new ValidationError(`tool_choice.type: must be one of ${Object.keys(TOOL_CHOICES).join(', ')}`);
  const chat: Body = { tool_choice: convert(choice as Body) };
  if ((choice as Body).disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  return chat;
}

/** `thinking` reaches the chat template (enable_thinking and its dialects); its budget caps reasoning tokens. */
function thinking(value: unknown, chat: Body): void {
  chat.thinking = value;
  const budget = isObject(value) ? value.budget_tokens : undefined;
  if (!present(budget)) return;
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1) throw new ValidationError('thinking.budget_tokens: must be a positive integer');
  const nvext = isObject(chat.nvext) ? chat.nvext : {};
  chat.nvext = { max_thinking_tokens: budget, ...nvext };
}

/** `metadata.user_id` is chat's `user`. */
function metadata(value: unknown, chat: Body): void {
  if (!present(value)) return;
  if (!isObject(value)) throw new ValidationError('metadata: must be an object');
  if (present(value.user_id)) {
    if (typeof value.user_id !== 'string') throw new ValidationError('metadata.user_id: must be a string');
    chat.user = value.user_id;
  }
}
