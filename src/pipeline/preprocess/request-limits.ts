// Size limits on one request, checked on the raw body before anything costly: the per-message
// checks, the chat template and the tokenizer all grow with these sizes, and they run on the event
// loop (the template) or hold memory (the tokenizer) for every other client too. Each 400 names the
// limit, the value and the option that sets it.

import { fail } from './validation-failure.js';

export interface RequestLimits {
  /** `--max-request-messages`: messages in one chat request. */
  maxMessages: number;
  /** `--max-request-tools`: tool definitions in one request (upstream's fixed 1536). */
  maxTools: number;
  /** `--max-prompt-chars`: characters of prompt text in one request, over all messages or prompts. */
  maxPromptChars: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  maxMessages: 4096,
  maxTools: 1536,
  maxPromptChars: 4_000_000,
};

export function checkMessageCount(messages: unknown, limits: RequestLimits): void {
  if (!Array.isArray(messages) || messages.length <= limits.maxMessages) return;
  fail(`Request has ${messages.length} messages, more than the limit of ${limits.maxMessages} (--max-request-messages)`);
}

/** Upstream's message, with the option that now sets the limit. */
export function checkToolCount(tools: unknown, limits: RequestLimits): void {
  if (!Array.isArray(tools) || tools.length <= limits.maxTools) return;
  fail(`Maximum of ${limits.maxTools} tools are supported, got ${tools.length} (--max-request-tools)`);
}

export function checkPromptChars(chars: number, limits: RequestLimits): void {
  if (chars <= limits.maxPromptChars) return;
  fail(`Prompt has ${chars} characters, more than the limit of ${limits.maxPromptChars} (--max-prompt-chars)`);
}

function textLength(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}

/** The text a chat request puts into its prompt: contents, text parts, reasoning and tool-call arguments. */
export function chatPromptChars(messages: readonly Record<string, unknown>[]): number {
  let chars = 0;
  for (const message of messages) {
    const content = message.content;
    if (Array.isArray(content)) {
      for (const part of content as Record<string, unknown>[]) chars += textLength(part.text);
    } else chars += textLength(content);
    chars += textLength(message.reasoning_content);
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as { function: { arguments: string } }[]) chars += call.function.arguments.length;
    }
  }
  return chars;
}

/** The text of a completions prompt: a string or a batch of strings (token ids are not text). */
export function completionPromptChars(prompt: unknown): number {
  if (!Array.isArray(prompt)) return textLength(prompt);
  let chars = 0;
  for (const p of prompt) chars += textLength(p);
  return chars;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Text of a content value of any API: a string, or parts whose `text` is a string. */
function contentChars(content: unknown): number {
  if (!Array.isArray(content)) return textLength(content);
  let chars = 0;
  for (const part of content) if (isRecord(part)) chars += textLength(part.text);
  return chars;
}

/** The prompt text of a list of messages or input items, whatever their API and however malformed. */
function itemsChars(items: unknown): number {
  if (!Array.isArray(items)) return contentChars(items);
  let chars = 0;
  for (const item of items) {
    if (!isRecord(item)) {
      chars += textLength(item);
      continue;
    }
    chars += contentChars(item.content) + textLength(item.reasoning_content);
    if (Array.isArray(item.tool_calls)) {
      for (const call of item.tool_calls) if (isRecord(call) && isRecord(call.function)) chars += textLength(call.function.arguments);
    }
  }
  return chars;
}

/**
 * The size limits, checked on a freshly parsed body of any route before it goes anywhere (on the
 * parse thread for big bodies, so an over-limit body never crosses back to the event loop). Only
 * shapes a route turns into prompt text are counted (chat and Anthropic `messages` and `system`,
 * Responses `input` and `instructions`, completions `prompt`), so the door refuses no body that the
 * route's own checks, which still run after it, would accept. Embeddings' `input` is counted too:
 * that many characters are past any model's context window.
 */
export function checkBodyLimits(body: unknown, limits: RequestLimits): void {
  if (!isRecord(body)) return;
  checkMessageCount(body.messages, limits);
  checkToolCount(body.tools, limits);
  const chars =
    itemsChars(body.messages) + contentChars(body.system) + itemsChars(body.input) + textLength(body.instructions) + completionPromptChars(body.prompt);
  checkPromptChars(chars, limits);
}
