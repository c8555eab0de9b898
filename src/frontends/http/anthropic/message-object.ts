// Anthropic's Message object (reference/http.md §9.2): the unary answer, and the snapshot a stream's
// message_start carries. One builder for both, so a streamed message folds to the unary one.

import type { WireFinishReason } from '../../../pipeline/index.js';
import type { CompletionUsage } from '../../../protocols/index.js';

type Json = Record<string, unknown>;

/** What every form of one message repeats. */
export interface MessageHead {
  id: string;
  model: string;
}

export interface MessageStop {
  stop_reason: string;
  stop_sequence: string | null;
}

/** Anthropic's stop_reason by the choice's finish reason (a stop on a user's stop sequence reads stop_sequence). */
const STOP_REASONS: Readonly<Record<WireFinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  content_filter: 'end_turn',
  tool_calls: 'tool_use',
};

export function messageStop(finishReason: WireFinishReason | null, stopReason: string | number | null, stopSequences: readonly string[]): MessageStop {
  if (finishReason === 'stop' && typeof stopReason === 'string' && stopSequences.includes(stopReason)) {
    return { stop_reason: 'stop_sequence', stop_sequence: stopReason };
  }
  return { stop_reason: STOP_REASONS[finishReason ?? 'stop'], stop_sequence: null };
}

export function messageUsage(usage: CompletionUsage): Json {
  const out: Json = { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (cached !== undefined && cached !== null) out.cache_read_input_tokens = cached;
  return out;
}

export function messageObject(head: MessageHead, content: Json[], stop: MessageStop | null, usage: CompletionUsage): Json {
  return {
    id: head.id,
    type: 'message',
    role: 'assistant',
    model: head.model,
    content,
    stop_reason: stop?.stop_reason ?? null,
    stop_sequence: stop?.stop_sequence ?? null,
    stop_details: null,
    usage: messageUsage(usage),
  };
}

export function textBlock(text: string): Json {
  return { type: 'text', text };
}

/** The model's reasoning; the signature is empty, as no signing key vouches for it here. */
export function thinkingBlock(thinking: string): Json {
  return { type: 'thinking', thinking, signature: '' };
}

/**
 * A tool call: `input` is the arguments object the model generated, from their JSON (`{}` while
 * none has come, or when they are not a JSON object: Anthropic's input is always one).
 */
export function toolUseBlock(id: string, name: string, argumentsJson: string): Json {
  return { type: 'tool_use', id: toolUseId(id), name, input: jsonObject(argumentsJson) };
}

/**
 * Anthropic's tool ids read `toolu_…`: the call's own id (`call-<uuid>`) in that spelling, so a
 * streamed block and the unary one agree; an id already so spelled is kept.
 */
export function toolUseId(callId: string): string {
  return callId.startsWith('toolu_') ? callId : `toolu_${callId.replace(/^call-/, '').replaceAll('-', '')}`;
}

function jsonObject(text: string): Json {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
  } catch {
    return {};
  }
}
