// Request events on node:diagnostics_channel: the pipeline publishes one request's life (start,
// first token, tokens, end, error, cancel); metrics and tracing subscribe. Channels are
// process-global while one process may run several frontends, so every message names the scope
// (frontend) its request belongs to and subscriptions only see their own scope.

import { subscribe, unsubscribe, channel, type Channel } from 'node:diagnostics_channel';
import type { CompletionUsage, DispatchInfo, MigrationType, TraceHeaders } from './engine.js';
import type { ErrorKind } from './errors.js';

/** Identifies the frontend a request belongs to; compared by identity, the name is for people. */
export interface RequestScope {
  readonly name: string;
}

/** One request as every event of it names it; the same object for all of its events. */
export interface RequestInfo {
  readonly scope: RequestScope;
  readonly id: string;
  readonly model: string;
  /** The `endpoint` metric label: `chat_completions`, `completions`, `tensor`, ... */
  readonly endpoint: string;
  readonly requestType: 'stream' | 'unary';
  /** `performance.now()` when the request started, in milliseconds. */
  readonly startedAt: number;
  /** The client's W3C trace context (`traceparent`/`tracestate` header or metadata), when it sent one. */
  readonly trace?: TraceHeaders;
  /** What the client called: `POST /v1/chat/completions`, `/inference.GRPCInferenceService/ModelInfer`, ... */
  readonly operation?: string;
}

export interface RequestStartEvent {
  readonly request: RequestInfo;
}

/** The first step that carried tokens. */
export interface RequestFirstTokenEvent {
  readonly request: RequestInfo;
  /** Seconds since the start. */
  readonly ttft: number;
}

/**
 * A step that carried tokens, the first included. The publisher reuses one object per request
 * (the token path is hot): read it in the handler, do not keep it.
 */
export interface RequestTokenEvent {
  readonly request: RequestInfo;
  readonly tokens: number;
  /** Seconds since the previous step with tokens; null on the first. */
  readonly interval: number | null;
}

export interface RequestEndEvent {
  readonly request: RequestInfo;
  /** The request's usage, when it has token counts (tensor requests have none). */
  readonly usage: CompletionUsage | undefined;
  /** Seconds since the start. */
  readonly duration: number;
}

export interface RequestErrorEvent {
  readonly request: RequestInfo;
  readonly kind: Exclude<ErrorKind, 'cancelled'>;
  readonly error: unknown;
  readonly duration: number;
}

/** The client went away or cancelled the request. */
export interface RequestCancelEvent {
  readonly request: RequestInfo;
  readonly duration: number;
}

/** The request was re-sent to another worker after its worker was lost. */
export interface RequestMigrationEvent {
  readonly request: RequestInfo;
  readonly type: MigrationType;
  /** Seconds from the failure until the re-sent attempt answered, ended or failed. */
  readonly duration: number;
}

/** The tokenizer encoded one prompt of the request. */
export interface RequestTokenizeEvent {
  readonly request: RequestInfo;
  readonly milliseconds: number;
}

/** One prompt's preprocessing times, in `performance.now()` milliseconds. */
export interface PromptTiming {
  /** When the tokenizer started (the chat template rendered just before). */
  readonly tokenizeStartedAt: number;
  readonly templateMs: number;
  readonly tokenizeMs: number;
}

/** The request's prompts were validated, templated and tokenized. */
export interface RequestPreprocessEvent {
  readonly request: RequestInfo;
  readonly prompts: readonly PromptTiming[];
  /** `performance.now()` when preprocessing ended. */
  readonly endedAt: number;
}

/**
 * The router chose an instance for one attempt of the request. A subscriber may set `trace` (the
 * context the engine call carries to the worker); the same object comes back in the call's end.
 */
export interface RequestDispatchEvent extends DispatchInfo {
  readonly request: RequestInfo;
  trace?: TraceHeaders;
}

/** The engine call of a dispatch ended: `error` when it failed. */
export interface RequestDispatchEndEvent {
  readonly dispatch: RequestDispatchEvent;
  readonly request: RequestInfo;
  readonly error: unknown;
}

export interface RequestEventMap {
  start: RequestStartEvent;
  firstToken: RequestFirstTokenEvent;
  token: RequestTokenEvent;
  end: RequestEndEvent;
  error: RequestErrorEvent;
  cancel: RequestCancelEvent;
  migration: RequestMigrationEvent;
  tokenize: RequestTokenizeEvent;
  preprocess: RequestPreprocessEvent;
  dispatch: RequestDispatchEvent;
  dispatchEnd: RequestDispatchEndEvent;
}

export type RequestEventName = keyof RequestEventMap;

/** The channel names, stable for outside subscribers. */
export const REQUEST_CHANNEL_NAMES: Readonly<Record<RequestEventName, string>> = {
  start: 'dynamo-ts:request:start',
  firstToken: 'dynamo-ts:request:first-token',
  token: 'dynamo-ts:request:token',
  end: 'dynamo-ts:request:end',
  error: 'dynamo-ts:request:error',
  cancel: 'dynamo-ts:request:cancel',
  migration: 'dynamo-ts:request:migration',
  tokenize: 'dynamo-ts:request:tokenize',
  preprocess: 'dynamo-ts:request:preprocess',
  dispatch: 'dynamo-ts:request:dispatch',
  dispatchEnd: 'dynamo-ts:request:dispatch-end',
};

/** The channel objects, created once; publishers check `hasSubscribers` before building a message. */
export const requestChannels: Readonly<Record<RequestEventName, Channel>> = {
  start: channel(REQUEST_CHANNEL_NAMES.start),
  firstToken: channel(REQUEST_CHANNEL_NAMES.firstToken),
  token: channel(REQUEST_CHANNEL_NAMES.token),
  end: channel(REQUEST_CHANNEL_NAMES.end),
  error: channel(REQUEST_CHANNEL_NAMES.error),
  cancel: channel(REQUEST_CHANNEL_NAMES.cancel),
  migration: channel(REQUEST_CHANNEL_NAMES.migration),
  tokenize: channel(REQUEST_CHANNEL_NAMES.tokenize),
  preprocess: channel(REQUEST_CHANNEL_NAMES.preprocess),
  dispatch: channel(REQUEST_CHANNEL_NAMES.dispatch),
  dispatchEnd: channel(REQUEST_CHANNEL_NAMES.dispatchEnd),
};

export type RequestEventHandlers = { [K in RequestEventName]?: (event: RequestEventMap[K]) => void };

type ScopedListener<K extends RequestEventName> = (scope: RequestScope, handler: (event: RequestEventMap[K]) => void) => (message: unknown) => void;

// One listener literal per event kind, not one shared by all: V8 keeps type feedback per function
// literal, and a shared one sees every kind's message shape and every subscriber's handler, so its
// property loads and calls go megamorphic on the per-request path.
const scopedListeners: { [K in RequestEventName]: ScopedListener<K> } = {
  start: (scope, handler) => (m) => { if ((m as RequestStartEvent).request.scope === scope) handler(m as RequestStartEvent); },
  firstToken: (scope, handler) => (m) => { if ((m as RequestFirstTokenEvent).request.scope === scope) handler(m as RequestFirstTokenEvent); },
  token: (scope, handler) => (m) => { if ((m as RequestTokenEvent).request.scope === scope) handler(m as RequestTokenEvent); },
  end: (scope, handler) => (m) => { if ((m as RequestEndEvent).request.scope === scope) handler(m as RequestEndEvent); },
  error: (scope, handler) => (m) => { if ((m as RequestErrorEvent).request.scope === scope) handler(m as RequestErrorEvent); },
  cancel: (scope, handler) => (m) => { if ((m as RequestCancelEvent).request.scope === scope) handler(m as RequestCancelEvent); },
  migration: (scope, handler) => (m) => { if ((m as RequestMigrationEvent).request.scope === scope) handler(m as RequestMigrationEvent); },
  tokenize: (scope, handler) => (m) => { if ((m as RequestTokenizeEvent).request.scope === scope) handler(m as RequestTokenizeEvent); },
  preprocess: (scope, handler) => (m) => { if ((m as RequestPreprocessEvent).request.scope === scope) handler(m as RequestPreprocessEvent); },
  dispatch: (scope, handler) => (m) => { if ((m as RequestDispatchEvent).request.scope === scope) handler(m as RequestDispatchEvent); },
  dispatchEnd: (scope, handler) => (m) => { if ((m as RequestDispatchEndEvent).request.scope === scope) handler(m as RequestDispatchEndEvent); },
};

function scopedListener<K extends RequestEventName>(name: K, scope: RequestScope, handler: (event: RequestEventMap[K]) => void): (message: unknown) => void {
  return (scopedListeners[name] as ScopedListener<K>)(scope, handler);
}

/** Calls `handlers` for the events of `scope`'s requests until the returned function is called. */
export function subscribeRequestEvents(scope: RequestScope, handlers: RequestEventHandlers): () => void {
  const listeners: [string, (message: unknown) => void][] = [];
  for (const name of Object.keys(handlers) as RequestEventName[]) {
    const handler = handlers[name];
    if (!handler) continue;
    const listener = scopedListener(name, scope, handler as (event: RequestEventMap[typeof name]) => void);
    subscribe(REQUEST_CHANNEL_NAMES[name], listener);
    listeners.push([REQUEST_CHANNEL_NAMES[name], listener]);
  }
  return () => {
    for (const [name, listener] of listeners) unsubscribe(name, listener);
    listeners.length = 0;
  };
}
