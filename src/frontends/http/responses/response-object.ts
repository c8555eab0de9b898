// The Response object of OpenAI's Responses API, unary and as the snapshots streamed events carry.

import { randomUUID } from 'node:crypto';
import type { WireFinishReason } from '../../../pipeline/index.js';
import { INTERNAL_ERROR_MESSAGE, isDynamoError, type CompletionUsage, type ErrorKind } from '../../../protocols/index.js';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';
type Json = Record<string, unknown>;

/** What every snapshot of one response repeats. */
export interface ResponseHead {
  id: string;
  createdAt: number;
  model: string;
  /** The request settings echoed back. */
  echo: Json;
}

/** `resp_`, `msg_`, ... followed by 32 hex digits. */
export function newItemId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

/** Why a response stopped short, by the choice's finish reason; null when it completed. */
const INCOMPLETE_REASON: Readonly<Record<WireFinishReason, string | null>> = {
  stop: null,
  length: 'max_output_tokens',
  content_filter: 'content_filter',
  tool_calls: null,
};

export function finishedStatus(finishReason: WireFinishReason | null): { status: ResponseStatus; incompleteReason: string | null } {
  const reason = finishReason === null ? null : INCOMPLETE_REASON[finishReason];
  return { status: reason === null ? 'completed' : 'incomplete', incompleteReason: reason };
}

export interface ResponseState {
  status: ResponseStatus;
  output: Json[];
  usage?: CompletionUsage;
  incompleteReason?: string | null;
  error?: { code: string; message: string };
}

export function responseObject(head: ResponseHead, state: ResponseState): Json {
  return {
    id: head.id,
    object: 'response',
    created_at: head.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason ? { reason: state.incompleteReason } : null,
    model: head.model,
    output: state.output,
    ...head.echo,
    usage: state.usage ? responseUsage(state.usage) : null,
    // When it finished; null until then, and for a response that failed or stopped short.
    completed_at: state.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
  };
}

export function messageItem(id: string, text: string, status: ResponseStatus): Json {
  return { id, type: 'message', status, role: 'assistant', content: [outputText(text)] };
}

/** A tool call the model made: `call_id` is the id a later function_call_output answers. */
export function functionCallItem(id: string, call: { callId: string; name: string; arguments: string; namespace?: string }, status: ResponseStatus): Json {
  const item: Json = { id, type: 'function_call', status, call_id: call.callId, name: call.name, arguments: call.arguments };
  if (call.namespace !== undefined) item.namespace = call.namespace;
  return item;
}

/** A call of a custom (free-form input) tool: `input` is the text the model wrote for it. */
export function customToolCallItem(id: string, call: { callId: string; name: string; input: string; namespace?: string }, status: ResponseStatus): Json {
  const item: Json = { id, type: 'custom_tool_call', status, call_id: call.callId, name: call.name, input: call.input };
  if (call.namespace !== undefined) item.namespace = call.namespace;
  return item;
}

/** A reasoning item as OpenAI's spec has it: the raw reasoning as one `reasoning_text` part, no summary. */
export function reasoningItem(id: string, text: string, status: ResponseStatus): Json {
  return { id, type: 'reasoning', status, summary: [], content: [reasoningText(text)] };
}

export function reasoningText(text: string): Json {
  return { type: 'reasoning_text', text };
}

export function outputText(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

export function responseUsage(usage: CompletionUsage): Json {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  };
}

/** The `code` of a failed response's error, by error kind (reference/http.md §9.1); server_error otherwise. */
const FAILURE_CODES: Partial<Record<ErrorKind, string>> = {
  validation: 'invalid_prompt',
  cancelled: 'request_cancelled',
};

/** What a client may learn of an error that failed a response: request errors and unavailability keep their text. */
export function responseFailure(err: unknown): { code: string; message: string } {
  if (!isDynamoError(err)) return { code: 'server_error', message: INTERNAL_ERROR_MESSAGE };
  const code = FAILURE_CODES[err.kind] ?? (err.httpStatus < 500 ? 'invalid_prompt' : 'server_error');
  const safe = err.httpStatus < 500 || err.kind === 'unavailable' || err.kind === 'overload';
  return { code, message: safe ? err.message : INTERNAL_ERROR_MESSAGE };
}
