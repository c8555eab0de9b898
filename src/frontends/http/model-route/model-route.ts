// The skeleton every model route shares (chat, completions, Responses, embeddings, images, videos):
// readiness, the model lookup for its API (404 unknown, 400 wrong type), request events with the
// route's endpoint label, cancellation when the client goes away, the in-flight count, and typed
// error replies. A route says how it checks its body and how it answers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ModelManager, ServedModel } from '../../../models/index.js';
import { traceContextOf } from '../../../observability/index.js';
import { RequestLifecycle } from '../../../pipeline/index.js';
import { callController, callEnded, CancelledError, InternalError, isDynamoError, type ModelApi, type RequestScope } from '../../../protocols/index.js';
import type { ErrorEnvelope } from '../error-envelope.js';
import type { HttpRoute } from '../http-route.js';
import type { RouteDoc } from '../openapi/index.js';
import { JSON_REPLY_TYPE, postRoute, requestIdOf, sendError } from '../server.js';
import type { HttpServiceState } from '../service-state.js';

/** One request of a model route, as its handler sees it. */
export interface ModelCall {
  served: ServedModel;
  requestId: string;
  request: RequestLifecycle;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface ModelRouteSpec<T> {
  /** The API the model must serve; a function when the body's shape decides it (tokenize's prompt or messages). */
  api: ModelApi | ((body: unknown) => ModelApi);
  /** The `endpoint` label of request metrics. */
  endpoint: string;
  /** The body's model name; a body without a usable one fails validation here, before a 404 could answer it. */
  modelName(body: unknown): string;
  /** Whether this request is answered as a stream (its metrics' request type); unary when absent. */
  streaming?(body: unknown): boolean;
  /** Checks the body (and prepares it for the model); throws a 400 naming the field. */
  prepare(req: FastifyRequest, served: ServedModel): T | Promise<T>;
  /**
   * Answers the request; resolves to the JSON body to send, or to undefined once it has answered
   * and settled the request's outcome itself (streams, folded answers).
   */
  run(call: ModelCall, prepared: T, reply: FastifyReply): Promise<unknown>;
  /** `run` always answers and settles the request itself: what it resolves to is not looked at. */
  answersItself?: true;
}

export interface ModelRouteContext {
  state: HttpServiceState;
  models: ModelManager;
  requestScope: RequestScope;
  /** The shape of error replies; OpenAI's flat body when absent. */
  errorEnvelope?: ErrorEnvelope;
}

/**
 * The body's model name. A body with no usable name fails `validate` (400 naming the field)
 * before the lookup could answer 404 for it; an unknown model is 404 whatever else is wrong, as
 * upstream resolves the model before validating the rest.
 */
export function namedModel(body: unknown, validate: (body: unknown) => unknown): string {
  const model = (body as { model?: unknown } | null)?.model;
  if (typeof model === 'string' && model.trim() !== '') return model;
  validate(body);
  return '';
}

/** What a model call is opened from: its body and where it came from. */
export interface CallOrigin {
  body: unknown;
  requestId: string;
  /** The headers of the HTTP request that brought it (a WebSocket's: its upgrade request's). */
  headers: IncomingHttpHeaders;
  /** What the client called, for traces: the HTTP method and path, or the WebSocket event. */
  operation: string;
}

/** What opening a call needs of a route: its API, metrics label, the body's model and whether it streams. */
export type CallSpec = Pick<ModelRouteSpec<unknown>, 'api' | 'endpoint' | 'modelName' | 'streaming'>;

/**
 * Opens one model call: the service must be serving and the body's model serve the route's API;
 * then the request's events start. Throws the typed error that answers it otherwise.
 */
export function openModelCall(ctx: ModelRouteContext, spec: CallSpec, origin: CallOrigin): { served: ServedModel; request: RequestLifecycle } {
  ctx.state.assertServing();
  const { body, headers } = origin;
  const api = typeof spec.api === 'function' ? spec.api(body) : spec.api;
  const served = ctx.models.getFor(spec.modelName(body), api);
  const request = RequestLifecycle.start({
    scope: ctx.requestScope,
    id: origin.requestId,
    model: served.name,
    endpoint: spec.endpoint,
    requestType: spec.streaming?.(body) ? 'stream' : 'unary',
    trace: headers.traceparent === undefined ? undefined : traceContextOf(headers.traceparent, headers.tracestate),
    operation: origin.operation,
  });
  return { served, request };
}

export function modelRouteHandler<T>(ctx: ModelRouteContext, spec: ModelRouteSpec<T>) {
  // What the client called, for traces: the same for every request of the route, so made once
  // (fastify builds a new routeOptions object on each read).
  let routeOperation: string | undefined;
  const operationOf = (req: FastifyRequest): string => {
    if (routeOperation !== undefined) return routeOperation;
    const url = req.routeOptions.url;
    if (url === undefined) return `${req.method} ${req.url}`;
    return (routeOperation = `${req.method} ${url}`);
  };
  // The handler resolves to nothing once it has answered: fastify then leaves the reply alone (a
  // reply resolved would be waited on as a thenable, one more turn of the microtask queue).
  return async (req: FastifyRequest, reply: FastifyReply): Promise<undefined> => {
    const requestId = requestIdOf(req);
    let request: RequestLifecycle | undefined;
    let client: ClientSignal | undefined;
    let counted = false;
    let failed = false;
    try {
      const opened = openModelCall(ctx, spec, { body: req.body, requestId, headers: req.headers, operation: operationOf(req) });
      request = opened.request;
      const { served } = opened;
      const prepared = await spec.prepare(req, served);
      client = new ClientSignal(reply.raw);
      ctx.state.inflight++;
      counted = true;
      const call: ModelCall = { served, requestId, request, signal: client.signal };
      const body = await spec.run(call, prepared, reply);
      if (spec.answersItself || body === undefined) return;
      if (client.signal.aborted) {
        request.cancel();
        return;
      }
      request.succeed();
      reply.header('content-type', JSON_REPLY_TYPE).send(JSON.stringify(body));
    } catch (err) {
      failed = true;
      request?.fail(err);
      if (!isDynamoError(err)) req.log.error({ err }, 'request failed');
      if (reply.sent || reply.raw.headersSent) return;
      sendError(reply, err, ctx.state.overloadStatus, ctx.errorEnvelope);
    } finally {
      if (counted) ctx.state.inflight--;
      client?.handled(failed);
    }
  };
}

/**
 * A request's signal: aborted when the client goes away before its answer is out. Its controller
 * is one an ended call no longer uses, when there is one, and is handed on once the handler has
 * returned its answer and the response has closed: after both, nothing of this request aborts it or
 * reads its signal. A handler that failed keeps it (protocols/streams/call-signals.ts).
 */
class ClientSignal {
  private readonly controller = callController();
  /** Of the handler's return and the response's close, how many are still to come. */
  private pending = 2;
  private kept = false;

  constructor(private readonly res: ServerResponse) {
    res.on('close', this.onClose);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The handler has returned; one that failed keeps the controller. */
  handled(failed: boolean): void {
    if (failed) this.kept = true;
    this.settled();
  }

  private readonly onClose = (): void => {
    if (!this.res.writableFinished) this.controller.abort(new CancelledError());
    this.settled();
  };

  private settled(): void {
    if (--this.pending === 0 && !this.kept) callEnded(this.controller);
  }
}

/** A model route at its path: POST, described by `doc`. */
export function modelRoute<T>(spec: ModelRouteSpec<T>, doc: RouteDoc): HttpRoute {
  return { register: (app, path, ctx) => postRoute(app, path, modelRouteHandler(ctx, spec), doc) };
}

/** The one output a unary worker call answers with. */
export async function onlyOutput<T>(outputs: AsyncIterable<T>, what: string): Promise<T> {
  let last: T | undefined;
  for await (const out of outputs) last = out;
  if (last === undefined) throw new InternalError(`the worker sent no ${what}`);
  return last;
}
