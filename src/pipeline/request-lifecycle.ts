// Publishes one request's events on the request channels (protocols/request-events.ts). Messages
// are built only when a channel has subscribers; the per-token message is one reused object.

import {
  deliveryNow,
  isDynamoError,
  requestChannels as channels,
  type CompletionUsage,
  type DispatchedCall,
  type DispatchInfo,
  type ErrorKind,
  type GenerateContext,
  type MigrationType,
  type PromptTiming,
  type RequestDispatchEvent,
  type RequestInfo,
  type RequestScope,
  type TraceHeaders,
} from '../protocols/index.js';

export interface RequestDescription {
  scope: RequestScope;
  id: string;
  model: string;
  endpoint: string;
  requestType: 'stream' | 'unary';
  /** The client's W3C trace context, when it sent one. */
  trace?: TraceHeaders;
  /** What the client called (HTTP method and path, gRPC method). */
  operation?: string;
}

/** The hooks of a GenerateContext through which a request's engine calls are reported. */
export type EngineCallHooks = Pick<GenerateContext, 'migrated' | 'dispatched'>;

/** Whatever counts the request's usage (its response fold). */
export interface UsageSource {
  usage(): CompletionUsage;
}

/** The error's kind, `internal` for anything that is not a DynamoError. */
export function errorKindOf(error: unknown): ErrorKind {
  return isDynamoError(error) ? error.kind : 'internal';
}

/**
 * The request's info: its description and start, field by field (an object spread here costs
 * about 400 bytes more per request). An optional field is there when the description has it.
 */
function requestInfo(d: RequestDescription, startedAt: number): RequestInfo {
  const info: { -readonly [K in keyof RequestInfo]: RequestInfo[K] } = { scope: d.scope, id: d.id, model: d.model, endpoint: d.endpoint, requestType: d.requestType, startedAt };
  if ('trace' in d) info.trace = d.trace;
  if ('operation' in d) info.operation = d.operation;
  return info;
}

/** One request's events; the outcome (end, error or cancel) is published once, later calls are ignored. */
export class RequestLifecycle {
  readonly info: RequestInfo;
  private closed = false;
  private sawTokens = false;
  private lastTokensAt: number;
  private usageSource: UsageSource | undefined;
  private readonly tokenEvent: { request: RequestInfo; tokens: number; interval: number | null };

  private constructor(description: RequestDescription) {
    this.info = requestInfo(description, performance.now());
    this.lastTokensAt = this.info.startedAt;
    this.tokenEvent = { request: this.info, tokens: 0, interval: null };
  }

  /** Starts a request and publishes its start event. */
  static start(description: RequestDescription): RequestLifecycle {
    const lifecycle = new RequestLifecycle(description);
    if (channels.start.hasSubscribers) channels.start.publish({ request: lifecycle.info });
    return lifecycle;
  }

  /** A step released `tokens` tokens: the first such step is the first token. */
  tokens(tokens: number): void {
    if (tokens <= 0 || this.closed) return;
    const first = !this.sawTokens;
    this.sawTokens = true;
    const firstWanted = first && channels.firstToken.hasSubscribers;
    const tokenWanted = channels.token.hasSubscribers;
    if (!firstWanted && !tokenWanted) return;
    // A pass's reading can predate a request started within that same pass.
    const now = Math.max(deliveryNow(), this.lastTokensAt);
    if (firstWanted) channels.firstToken.publish({ request: this.info, ttft: (now - this.info.startedAt) / 1000 });
    if (tokenWanted) {
      this.tokenEvent.tokens = tokens;
      this.tokenEvent.interval = first ? null : (now - this.lastTokensAt) / 1000;
      channels.token.publish(this.tokenEvent);
    }
    this.lastTokensAt = now;
  }

  /** The end event carries `source`'s usage. */
  usageFrom(source: UsageSource): void {
    this.usageSource = source;
  }

  succeed(): void {
    if (!this.close() || !channels.end.hasSubscribers) return;
    channels.end.publish({ request: this.info, usage: this.usageSource?.usage(), duration: this.elapsed() });
  }

  /** The client went away or cancelled. */
  cancel(): void {
    if (!this.close() || !channels.cancel.hasSubscribers) return;
    channels.cancel.publish({ request: this.info, duration: this.elapsed() });
  }

  /** Ends the request with `error`, of `kind` (by default the error's own, else `internal`); `cancelled` is a cancel. */
  fail(error: unknown, kind: ErrorKind = errorKindOf(error)): void {
    if (kind === 'cancelled') {
      this.cancel();
      return;
    }
    if (!this.close() || !channels.error.hasSubscribers) return;
    channels.error.publish({ request: this.info, kind, error, duration: this.elapsed() });
  }

  /**
   * The prompts were preprocessed: a preprocess event with their timings, and a tokenize event for
   * each one the tokenizer encoded (token ids sent by the client are not).
   */
  tokenized(runs: readonly PromptTiming[]): void {
    if (channels.preprocess.hasSubscribers) channels.preprocess.publish({ request: this.info, prompts: runs, endedAt: performance.now() });
    if (!channels.tokenize.hasSubscribers) return;
    for (const run of runs) if (run.tokenizeMs > 0) channels.tokenize.publish({ request: this.info, milliseconds: run.tokenizeMs });
  }

  /**
   * The router chose an instance for one attempt (a GenerateContext's `dispatched`): a dispatch
   * event, whose subscribers may give the call a trace context, and a dispatch-end event when the
   * call ends. Undefined, and nothing built, while nobody observes dispatches.
   */
  dispatched(info: DispatchInfo): DispatchedCall | undefined {
    if (!channels.dispatch.hasSubscribers && !channels.dispatchEnd.hasSubscribers) return undefined;
    const dispatch: RequestDispatchEvent = { ...info, request: this.info };
    channels.dispatch.publish(dispatch);
    return {
      trace: dispatch.trace,
      end: (error?: unknown) => {
        if (channels.dispatchEnd.hasSubscribers) channels.dispatchEnd.publish({ dispatch, request: this.info, error });
      },
    };
  }

  /**
   * The GenerateContext hooks that report this request's engine calls here: re-sends always,
   * dispatches only while someone observes them (so the router does nothing extra otherwise).
   */
  contextHooks(): EngineCallHooks {
    const migrated = (type: MigrationType, seconds: number): void => this.migrated(type, seconds);
    if (!channels.dispatch.hasSubscribers && !channels.dispatchEnd.hasSubscribers) return { migrated };
    return { migrated, dispatched: (info) => this.dispatched(info) };
  }

  /** The request was re-sent to another worker (a GenerateContext's `migrated`). */
  migrated(type: MigrationType, seconds: number): void {
    if (channels.migration.hasSubscribers) channels.migration.publish({ request: this.info, type, duration: seconds });
  }

  /** True the first time: the outcome is still to publish. */
  private close(): boolean {
    if (this.closed) return false;
    this.closed = true;
    return true;
  }

  private elapsed(): number {
    return (performance.now() - this.info.startedAt) / 1000;
  }
}
