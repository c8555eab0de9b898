// Size limits on one request, checked on the raw body before anything costly: the per-message
// checks, the chat template and the tokenizer all grow with these sizes, and they run on the event
// loop (the template) or hold memory (the tokenizer) for every other client too. Each 400 names the
// limit, the value and the option that sets it.

import { fail } from './validate-rules.js';

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
