// What every generating route does around the pipeline: readiness, the model lookup, the request's
// lifecycle events, routing headers, cancellation when the client goes away, the in-flight count,
// the engine fan-out behind the pre-commit peek and the inactivity guard, and the error reply. A
// route (chat, completions, Responses) says how it prepares its body and how it answers.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ModelManager, ServedModel } from '../../models/index.js';
import {
  errorKindOf,
  generateChoices,
  RequestLifecycle,
  type ChoiceDelta,
  type DecodedStep,
  type PreparedRequest,
  type ResponseFold,
} from '../../pipeline/index.js';
import { CancelledError, isDynamoError, type RequestScope } from '../../protocols/index.js';
import { applyRoutingHeaders } from './routing-headers.js';
import { requestIdOf, sendError } from './server.js';
import type { HttpServiceState } from './service-state.js';
import { SseWriter } from './sse-writer.js';
import { peekFirst, withInactivityTimeout } from './stream-guard.js';

export interface GenerationRouteOptions {
  /** The frontend whose request events these requests publish. */
  requestScope: RequestScope;
  /** DYN_HTTP_SSE_KEEP_ALIVE_INTERVAL_MS */
  sseKeepAliveMs?: number;
  /** DYN_HTTP_PRE_COMMIT_ERROR_PEEK_MS */
  preCommitErrorPeekMs?: number;
  /** DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS */
  backendStreamTimeoutSecs?: number;
}

/** A route's body, validated and turned into engine requests. */
export interface PreparedGeneration {
  runs: PreparedRequest[];
  /** Choices per prompt. */
  n: number;
}

/** One started generation, handed to the route to answer. */
export interface Generation<P extends PreparedGeneration> {
  prepared: P;
  requestId: string;
  request: RequestLifecycle;
  steps: AsyncIterable<DecodedStep>;
  /** Prompt tokens over every prompt. */
  promptTokens: number;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface GenerationRoute<P extends PreparedGeneration> {
  /** The `endpoint` label of request metrics. */
  readonly endpoint: string;
  /** The requested model; a body without a usable one fails validation here, before a 404 could answer it. */
  modelName(body: unknown): string;
  prepare(body: unknown, served: ServedModel): Promise<P>;
  /** Answers, unary or streamed; the handler maps what it throws before a stream is committed. */
  respond(generation: Generation<P>, reply: FastifyReply): Promise<unknown>;
}

export function generationHandler<P extends PreparedGeneration>(
  route: GenerationRoute<P>,
  state: HttpServiceState,
  models: ModelManager,
  opts: GenerationRouteOptions,
): (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  return async (req, reply) => {
    const requestId = requestIdOf(req);
    let counted = false;
    let request: RequestLifecycle | undefined;
    try {
      state.assertServing();
      // Upstream resolves the model before validating the body: an unknown model is 404 whatever else is wrong.
      const served = models.get(route.modelName(req.body));
      request = RequestLifecycle.start({
        scope: opts.requestScope,
        id: requestId,
        model: served.name,
        endpoint: route.endpoint,
        requestType: (req.body as { stream?: unknown }).stream === true ? 'stream' : 'unary',
      });
      applyRoutingHeaders(req.body, req.headers);
      const prepared = await route.prepare(req.body, served);
      const abort = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort(new CancelledError());
      });
      state.inflight++;
      counted = true;
      const steps = generateChoices(
        { engine: served.router, tokenTable: served.tokenTable },
        prepared.runs.map((r) => ({ request: r.request, promptTokens: r.promptTokens })),
        prepared.n,
        requestId,
        abort.signal,
      );
      const guarded = withInactivityTimeout(
        await peekFirst(steps[Symbol.asyncIterator](), opts.preCommitErrorPeekMs),
        opts.backendStreamTimeoutSecs,
        () => abort.abort(),
      );
      const promptTokens = prepared.runs.reduce((sum, r) => sum + r.promptTokens, 0);
      return await route.respond({ prepared, requestId, request, steps: guarded, promptTokens, signal: abort.signal }, reply);
    } catch (err) {
      request?.fail(err);
      if (!isDynamoError(err)) req.log.error({ err, requestId }, 'request failed');
      if (reply.sent || reply.raw.headersSent) return;
      return sendError(reply, err, state.overloadStatus);
    } finally {
      if (counted) state.inflight--;
    }
  };
}

/** Folds every step of a unary answer; false when the client went away meanwhile (the request is then cancelled). */
export async function foldAll(generation: Generation<PreparedGeneration>, fold: ResponseFold): Promise<boolean> {
  for await (const step of generation.steps) fold.step(step);
  if (generation.signal.aborted) {
    generation.request.cancel();
    return false;
  }
  generation.request.succeed();
  return true;
}

export function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.header('content-type', 'application/json').send(JSON.stringify(body));
}

/** Takes the response over from fastify and opens an SSE stream on it, echoing `x-request-id`. */
export function openEventStream(reply: FastifyReply, keepAliveMs: number | undefined): SseWriter {
  reply.hijack();
  const headers: Record<string, string> = {};
  const echoed = reply.getHeader('x-request-id');
  if (typeof echoed === 'string') headers['x-request-id'] = echoed;
  return new SseWriter(reply.raw, headers, keepAliveMs);
}

/** How a route writes its stream: the events of each delta, the closing events, the error events. */
export interface StreamSink {
  delta(delta: ChoiceDelta): void;
  /** Every step is in. */
  finish(): void;
  /** The stream failed after it was committed (the client is still there). */
  fail(err: unknown): void;
}

/**
 * Streams a generation through `fold` into `sink`. A client that went away gets nothing more and
 * the request counts as cancelled; a stream killed by the inactivity timeout just ends (as upstream).
 */
export async function streamGeneration(
  generation: Generation<PreparedGeneration>,
  reply: FastifyReply,
  sse: SseWriter,
  fold: ResponseFold,
  sink: StreamSink,
): Promise<void> {
  const { request } = generation;
  try {
    for await (const step of generation.steps) {
      if (sse.isClosed) break;
      const delta = fold.step(step);
      if (delta) sink.delta(delta);
    }
    if (sse.isClosed) {
      request.cancel();
      return;
    }
    sink.finish();
    request.succeed();
  } catch (err) {
    const kind = sse.isClosed ? 'cancelled' : errorKindOf(err);
    request.fail(err, kind);
    if (kind !== 'cancelled') {
      const log = { err, requestId: generation.requestId, model: request.info.model, kind, status: isDynamoError(err) ? err.httpStatus : 500 };
      if (isDynamoError(err) && err.httpStatus < 500) reply.log.info(log, 'stream ended with a request error');
      else reply.log.error(log, 'stream failed');
    }
    if (sse.isClosed) return;
    if (kind === 'response_timeout') sse.end();
    else sink.fail(err);
  }
}
