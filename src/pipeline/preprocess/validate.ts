// Turns a raw JSON body into a checked ChatCompletionRequest / CompletionRequest, in upstream's
// order (reference/http.md §4.1): types (deserialization), deprecated fields (501), nvext, required
// fields, stream_options, then the generic rules of §5 in the order upstream runs them.

import {
  NotImplementedError,
  type ChatCompletionRequest,
  type CompletionRequest,
  type NvExt,
} from '../../protocols/index.js';
import { MEDIA_KIND_OF_PART } from './media-parts.js';
import { schemaViolation } from './schema-check.js';
import { checkKind, deserializeError, invalidType, isObject, isUint, type FieldKind } from './json-types.js';
import { normalizeReasoningArgs } from './reasoning-args.js';
import {
  DEFAULT_REQUEST_LIMITS,
  chatPromptChars,
  checkMessageCount,
  checkPromptChars,
  checkToolCount,
  completionPromptChars,
  type RequestLimits,
} from './request-limits.js';
import { CHAT_FIELDS, COMPLETION_FIELDS } from './request-fields.js';
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  VALIDATION_PREFIX,
  checkCommonExtRanges,
  checkCompletionTokenIdsChoice,
  checkFrequencyPenalty,
  checkGuidedDecoding,
  checkLogitBias,
  checkMaxTokens,
  checkModel,
  checkN,
  checkNWithTemperature,
  checkPresencePenalty,
  checkStop,
  checkStreamOptions,
  checkTemperature,
  checkTopP,
  checkTotalChoices,
  checkUnsupportedFields,
  checkUser,
  fail,
  knownFieldsOnly,
  parseNvext,
} from './validate-rules.js';

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

type Body = Record<string, unknown>;

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];
const MAX_FUNCTION_NAME_LENGTH = 128;
const FUNCTION_NAME = /^[A-Za-z0-9_-]*$/;
const MIN_PROMPT_EMBEDS_BYTES = 100;
const MAX_PROMPT_EMBEDS_BYTES = 10 * 1024 * 1024;

function asBody(body: unknown): Body {
  if (!isObject(body)) throw invalidType('', body, 'a JSON object');
  return body;
}

function checkTypes(body: Body, fields: Record<string, FieldKind>): void {
  for (const [key, value] of Object.entries(body)) {
    const kind = fields[key];
    if (kind !== undefined) checkKind(value, kind, key);
  }
}

function requireField(body: Body, field: string): void {
  if (body[field] === undefined) throw deserializeError('', `missing field \`${field}\``);
}

/** The nvext a deployment honours: all of it, or with nvext disabled only its cache_salt. */
export function honouredNvext(nvext: NvExt | null, enabled: boolean): NvExt | null {
  if (enabled || nvext === null) return nvext;
  return nvext.cache_salt ? { cache_salt: nvext.cache_salt } : null;
}

export function validateChatRequest(raw: unknown, opts: ValidationOptions = {}): ChatCompletionRequest {
  const body = asBody(raw);
  requireField(body, 'model');
  requireField(body, 'messages');
  checkTypes(body, CHAT_FIELDS);
  const limits = opts.limits ?? DEFAULT_REQUEST_LIMITS;
  checkMessageCount(body.messages, limits);
  checkToolCount(body.tools, limits);
  checkMessageShapes(body.messages);
  checkPromptChars(chatPromptChars(body.messages as Body[]), limits);
  checkToolShapes(body.tools);
  checkToolChoiceShape(body.tool_choice);
  checkResponseFormatShape(body.response_format);
  if (body.function_call !== undefined && body.function_call !== null) {
    throw new NotImplementedError(
      `${VALIDATION_PREFIX}\`function_call\` is deprecated. Please migrate to use \`tool_choice\` instead.`,
    );
  }
  if (body.functions !== undefined && body.functions !== null) {
    throw new NotImplementedError(`${VALIDATION_PREFIX}\`functions\` is deprecated. Please migrate to use \`tools\` instead.`);
  }
  const nvext = parseNvext(body.nvext);
  const messages = body.messages as unknown[];
  if (messages.length === 0) fail("The 'messages' field cannot be empty. At least one message is required.");
  checkStreamOptions(body);
  if (opts.rejectMediaInputs?.length) checkRejectedMedia(body, messages as Body[], opts.rejectMediaInputs);

  checkUnsupportedFields(body, CHAT_FIELDS, opts.ignoreUnsupportedFields === true);
  checkGuidedDecoding(body);
  const templateArgs = mergedTemplateArgs(body);
  if (templateArgs && 'chat_template' in templateArgs) fail('`chat_template` is not supported inside `chat_template_args`');
  checkMessageRules(messages as Body[], body.tools as Body[] | null | undefined);
  checkModel(body.model);
  checkFrequencyPenalty(body.frequency_penalty);
  checkLogitBias(body.logit_bias);
  checkRangeInt(body.top_logprobs, 0, 20, (v) => `Top_logprobs must be between 0 and 20, got ${v}`);
  const limit = opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  checkMaxTokens(body.max_tokens, 'Max tokens', limit);
  checkMaxTokens(body.max_completion_tokens, 'Max completion tokens', limit);
  checkN(body.n);
  checkCompletionTokenIdsChoice((body.n as number | null | undefined) ?? 1, nvext);
  checkPresencePenalty(body.presence_penalty);
  checkResponseFormatRules(body.response_format);
  checkStop(body.stop);
  checkTemperature(body.temperature);
  checkTopP(body.top_p);
  checkToolRules(body.tools as Body[] | null | undefined);
  checkToolChoiceRules(body.tool_choice, body.tools as Body[] | null | undefined);
  checkUser(body.user);
  checkCommonExtRanges(body);
  checkNWithTemperature(body.n, body.temperature);
  if (body.continue_final_message === true && body.add_generation_prompt !== false) {
    fail('Cannot set both `continue_final_message` and `add_generation_prompt` to True.');
  }

  const request = knownFieldsOnly(body, CHAT_FIELDS) as unknown as ChatCompletionRequest & { chat_template_kwargs?: unknown };
  delete request.chat_template_kwargs;
  request.chat_template_args = normalizeReasoningArgs(body.thinking, body.reasoning_effort, templateArgs);
  delete request.thinking;
  request.nvext = honouredNvext(nvext, opts.nvextEnabled !== false);
  return request;
}

export function validateCompletionRequest(raw: unknown, opts: ValidationOptions = {}): CompletionRequest {
  const body = asBody(raw);
  requireField(body, 'model');
  checkTypes(body, COMPLETION_FIELDS);
  checkPromptShape(body.prompt);
  checkPromptChars(completionPromptChars(body.prompt), opts.limits ?? DEFAULT_REQUEST_LIMITS);
  const nvext = parseNvext(body.nvext);
  checkStreamOptions(body);

  checkUnsupportedFields(body, COMPLETION_FIELDS, opts.ignoreUnsupportedFields === true);
  checkGuidedDecoding(body);
  if (body.add_generation_prompt != null || body.continue_final_message != null) {
    fail('`add_generation_prompt` and `continue_final_message` are only supported on /v1/chat/completions');
  }
  checkModel(body.model);
  checkPromptRules(body.prompt, body.prompt_embeds);
  if (typeof body.suffix === 'string' && body.suffix.length > 10000) fail('Suffix is too long, maximum 10000 characters');
  checkMaxTokens(body.max_tokens, 'Max tokens', opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
  checkTemperature(body.temperature);
  checkTopP(body.top_p);
  checkN(body.n);
  checkRangeInt(body.logprobs, 0, 5, (v) => `Logprobs must be between 0 and 5, got ${v}`);
  checkStop(body.stop);
  checkPresencePenalty(body.presence_penalty);
  checkFrequencyPenalty(body.frequency_penalty);
  checkBestOf(body.best_of, body.n);
  checkLogitBias(body.logit_bias);
  checkUser(body.user);
  checkCommonExtRanges(body);
  checkNWithTemperature(body.n, body.temperature);
  const n = (body.n as number | null | undefined) ?? 1;
  checkTotalChoices(promptBatchSize(body.prompt), n);
  checkCompletionTokenIdsChoice(promptBatchSize(body.prompt) * n, nvext);

  const request = knownFieldsOnly(body, COMPLETION_FIELDS) as unknown as CompletionRequest;
  request.nvext = honouredNvext(nvext, opts.nvextEnabled !== false);
  return request;
}

function checkRangeInt(value: unknown, min: number, max: number, message: (v: number) => string): void {
  if (typeof value === 'number' && (value < min || value > max)) fail(message(value));
}

function checkBestOf(bestOf: unknown, n: unknown): void {
  if (typeof bestOf !== 'number') return;
  if (bestOf > 20) fail(`Best_of must be between 0 and 20, got ${bestOf}`);
  if (typeof n === 'number' && bestOf < n) fail(`Best_of must be greater than or equal to n, got best_of=${bestOf} and n=${n}`);
}

/** `chat_template_kwargs` is an alias of `chat_template_args`; the latter wins on a shared key. */
function mergedTemplateArgs(body: Body): Record<string, unknown> | null {
  const args = body.chat_template_args as Record<string, unknown> | null | undefined;
  const kwargs = body.chat_template_kwargs as Record<string, unknown> | null | undefined;
  if (!args && !kwargs) return null;
  return { ...kwargs, ...args };
}

// ---- chat messages -------------------------------------------------------------------------

function checkMessageShapes(messages: unknown): void {
  if (!Array.isArray(messages)) throw invalidType('messages', messages, 'a sequence');
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (!isObject(message)) throw invalidType(path, message, 'a message object');
    if (typeof message.role !== 'string' || !ROLES.includes(message.role)) {
      const detail = typeof message.role === 'string'
        ? `unknown variant \`${message.role}\`, expected one of ${ROLES.map((r) => `\`${r}\``).join(', ')}`
        : 'missing field `role`';
      throw deserializeError(`${path}.role`, detail);
    }
    checkContentShape(message.content, `${path}.content`);
    if (message.role === 'tool' && typeof message.tool_call_id !== 'string') {
      if (message.tool_call_id === undefined) throw deserializeError(path, 'missing field `tool_call_id`');
      throw invalidType(`${path}.tool_call_id`, message.tool_call_id, 'a string');
    }
    const calls = message.tool_calls;
    if (calls === undefined || calls === null) return;
    if (!Array.isArray(calls)) throw invalidType(`${path}.tool_calls`, calls, 'a sequence');
    calls.forEach((call, j) => {
      const callPath = `${path}.tool_calls[${j}]`;
      if (!isObject(call) || !isObject(call.function)) throw deserializeError(callPath, 'missing field `function`');
      checkKind(call.function.name, 'string', `${callPath}.function.name`);
      checkKind(call.function.arguments, 'string', `${callPath}.function.arguments`);
      if (typeof call.function.name !== 'string') throw deserializeError(`${callPath}.function`, 'missing field `name`');
      if (typeof call.function.arguments !== 'string') throw deserializeError(`${callPath}.function`, 'missing field `arguments`');
    });
  });
}

/** Media parts of a kind the deployment refuses, and audio output when audio is refused. */
function checkRejectedMedia(body: Body, messages: Body[], rejected: readonly string[]): void {
  messages.forEach((message, i) => {
    if (!Array.isArray(message.content)) return;
    for (const part of message.content as Body[]) {
      const kind = MEDIA_KIND_OF_PART[part.type as string];
      if (kind && rejected.includes(kind)) {
        fail(`${kind} input is not supported for this model: remove the \`${part.type as string}\` content part from messages[${i}]`);
      }
    }
  });
  if (rejected.includes('audio') && Array.isArray(body.modalities) && body.modalities.includes('audio')) {
    fail('audio output is not supported for this model');
  }
}

function checkContentShape(content: unknown, path: string): void {
  if (content === null || content === undefined || typeof content === 'string') return;
  if (!Array.isArray(content)) throw invalidType(path, content, 'a string or an array of content parts');
  content.forEach((part, k) => {
    const partPath = `${path}[${k}]`;
    if (!isObject(part) || typeof part.type !== 'string') throw deserializeError(partPath, 'missing field `type`');
    if (part.type === 'text' && typeof part.text !== 'string') throw invalidType(`${partPath}.text`, part.text, 'a string');
  });
}

/**
 * Tool messages need a call id; earlier assistant tool-call arguments must be JSON objects that
 * fit the parameters of the tool they call, when that tool is in `tools`.
 */
function checkMessageRules(messages: Body[], tools: Body[] | null | undefined): void {
  messages.forEach((message, i) => {
    if (message.role === 'tool' && (message.tool_call_id as string).trim() === '') {
      fail(`\`messages[${i}].tool_call_id\` cannot be empty`);
    }
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) return;
    (message.tool_calls as { function: { name: string; arguments: string } }[]).forEach((call, j) => {
      const args = call.function.arguments;
      if (args.trim() === '') return;
      const field = `\`messages[${i}].tool_calls[${j}].function.arguments\``;
      let parsed: unknown;
      try {
        parsed = JSON.parse(args);
      } catch (err) {
        fail(`${field} must be a valid JSON object string: ${(err as Error).message}`);
      }
      if (!isObject(parsed)) fail(`${field} must be a valid JSON object string`);
      const tool = tools?.find((t) => (t.function as { name?: unknown } | undefined)?.name === call.function.name);
      const violation = tool ? schemaViolation(parsed, (tool.function as { parameters?: unknown }).parameters) : null;
      if (violation) fail(`${field} does not match the parameters of tool "${call.function.name}": ${violation}`);
    });
  });
}

// ---- tools, tool_choice, response_format ----------------------------------------------------

function checkToolShapes(tools: unknown): void {
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) throw invalidType('tools', tools, 'a sequence');
  tools.forEach((tool, i) => {
    const path = `tools[${i}]`;
    if (!isObject(tool)) throw invalidType(path, tool, 'a tool object');
    if (tool.type === undefined) throw deserializeError(path, 'missing field `type`');
    if (tool.type !== 'function') throw deserializeError(`${path}.type`, `unknown variant \`${String(tool.type)}\`, expected \`function\``);
    if (!isObject(tool.function)) throw deserializeError(path, 'missing field `function`');
    const name = tool.function.name;
    if (name === undefined) throw deserializeError(`${path}.function`, 'missing field `name`');
    if (typeof name !== 'string') throw invalidType(`${path}.function.name`, name, 'a string');
  });
}

function checkToolRules(tools: Body[] | null | undefined): void {
  if (!tools) return;
  tools.forEach((tool, i) => {
    const fn = tool.function as { name: string; parameters?: unknown };
    const bytes = Buffer.byteLength(fn.name);
    if (bytes > MAX_FUNCTION_NAME_LENGTH) {
      fail(`Function name at index ${i} exceeds ${MAX_FUNCTION_NAME_LENGTH} character limit, got ${bytes} characters`);
    }
    if (fn.name.trim() === '') fail(`Function name at index ${i} cannot be empty`);
    if (!FUNCTION_NAME.test(fn.name)) {
      fail(`Function at index ${i} has an invalid name: "${fn.name}". Only a-z, A-Z, 0-9, underscores, and dashes are allowed.`);
    }
    if (fn.parameters !== undefined && fn.parameters !== null && !isObject(fn.parameters)) {
      fail(`Function parameters at index ${i} for "${fn.name}" must be a JSON Schema object`);
    }
  });
}

function checkToolChoiceShape(choice: unknown): void {
  if (choice === undefined || choice === null) return;
  if (typeof choice === 'string') {
    if (!['none', 'auto', 'required'].includes(choice)) {
      throw deserializeError('tool_choice', `unknown variant \`${choice}\`, expected one of \`none\`, \`auto\`, \`required\``);
    }
    return;
  }
  if (!isObject(choice) || !isObject(choice.function) || typeof choice.function.name !== 'string') {
    throw invalidType('tool_choice', choice, '"none", "auto", "required" or {"type":"function","function":{"name":...}}');
  }
}

function checkToolChoiceRules(choice: unknown, tools: Body[] | null | undefined): void {
  if (choice === 'required' && (!tools || tools.length === 0)) fail('tool_choice is "required" but tools is empty');
  if (!isObject(choice)) return;
  const name = (choice.function as { name: string }).name;
  if (!tools?.some((t) => (t.function as { name: string }).name === name)) {
    fail(`tool named "${name}" in tool_choice is not present in tools`);
  }
}

function checkResponseFormatShape(format: unknown): void {
  if (format === undefined || format === null) return;
  if (!isObject(format)) throw invalidType('response_format', format, 'an object');
  if (!['text', 'json_object', 'json_schema'].includes(format.type as string)) {
    throw deserializeError(
      'response_format.type',
      `unknown variant \`${String(format.type)}\`, expected one of \`text\`, \`json_object\`, \`json_schema\``,
    );
  }
  if (format.type !== 'json_schema') return;
  if (!isObject(format.json_schema)) throw deserializeError('response_format', 'missing field `json_schema`');
  if (typeof format.json_schema.name !== 'string') throw deserializeError('response_format.json_schema', 'missing field `name`');
}

function checkResponseFormatRules(format: unknown): void {
  if (!isObject(format) || format.type !== 'json_schema') return;
  const schema = format.json_schema as { name: string; schema?: unknown };
  if (schema.name === '') fail('`response_format.json_schema.name` cannot be empty');
  if (schema.schema === undefined || schema.schema === null) {
    fail('`response_format.json_schema.schema` is required when `response_format.type` is `json_schema`');
  }
  if (!isObject(schema.schema)) {
    const kind = Array.isArray(schema.schema) ? 'array' : typeof schema.schema === 'number' ? 'number' : typeof schema.schema;
    fail(`\`response_format.json_schema.schema\` must be a JSON object, got ${kind}`);
  }
}

// ---- completions prompt ---------------------------------------------------------------------

function checkPromptShape(prompt: unknown): void {
  if (prompt === undefined || prompt === null || typeof prompt === 'string') return;
  const ok =
    Array.isArray(prompt) &&
    (prompt.every((p) => typeof p === 'string') ||
      prompt.every(isUint) ||
      prompt.every((p) => Array.isArray(p) && p.every(isUint)));
  if (!ok) {
    throw deserializeError(
      'prompt',
      'data did not match any variant: expected a string, an array of strings, an array of token ids or an array of token id arrays',
    );
  }
}

function checkPromptRules(prompt: unknown, embeds: unknown): void {
  const hasPrompt = prompt !== undefined && prompt !== null;
  if (!hasPrompt && typeof embeds !== 'string') fail("At least one of 'prompt' or 'prompt_embeds' must be provided");
  if (typeof embeds === 'string') {
    checkPromptEmbeds(embeds);
    return;
  }
  if (typeof prompt === 'string') {
    if (prompt === '') fail('Prompt string cannot be empty');
    return;
  }
  const list = prompt as unknown[];
  // An empty array fails as the first variant serde tries: a string array.
  if (list.length === 0) fail('Prompt string array cannot be empty');
  if (typeof list[0] === 'string') {
    list.forEach((p, i) => {
      if (p === '') fail(`Prompt string at index ${i} cannot be empty`);
    });
  } else if (Array.isArray(list[0])) {
    list.forEach((p, i) => {
      if ((p as unknown[]).length === 0) fail(`Prompt integer array at index ${i} cannot be empty`);
    });
  }
}

function checkPromptEmbeds(embeds: string): void {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(embeds) || embeds.length % 4 !== 0) {
    fail('prompt_embeds must be valid base64-encoded data');
  }
  const bytes = Buffer.from(embeds, 'base64').length;
  if (bytes < MIN_PROMPT_EMBEDS_BYTES) {
    fail(`prompt_embeds decoded data must be at least ${MIN_PROMPT_EMBEDS_BYTES} bytes, got ${bytes} bytes`);
  }
  if (bytes > MAX_PROMPT_EMBEDS_BYTES) fail(`prompt_embeds decoded data exceeds maximum size of 10MB, got ${bytes} bytes`);
}

/** Number of prompts in a batch: string[] and number[][] are batches; a string or number[] is one. */
export function promptBatchSize(prompt: unknown): number {
  if (!Array.isArray(prompt) || prompt.length === 0) return 1;
  return typeof prompt[0] === 'string' || Array.isArray(prompt[0]) ? prompt.length : 1;
}
