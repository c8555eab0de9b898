// The skeleton every non-token route shares (embeddings, images, videos): readiness, the model
// lookup for its API (404 unknown, 400 wrong type), request events with the route's endpoint
// label, cancellation when the client goes away, the in-flight count, and typed error replies.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ModelManager, ServedModel } from '../../models/index.js';
import { RequestLifecycle } from '../../pipeline/index.js';
import { CancelledError, InternalError, isDynamoError, type ModelApi, type RequestScope } from '../../protocols/index.js';
import { requestIdOf, sendError } from './server.js';
import type { HttpServiceState } from './service-state.js';

/** One request of a model route, as its handler sees it. */
export interface ModelCall {
  served: ServedModel;
  requestId: string;
  request: RequestLifecycle;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface ModelRouteSpec<T> {
  api: ModelApi;
  /** The `endpoint` label of request metrics. */
  endpoint: string;
  /** Checks the body; throws a 400 naming the field. */
  validate(body: unknown): T;
  /** Whether this request is answered as a stream (its metrics' request type). */
  streaming?: (checked: T) => boolean;
  /** Answers the request; resolves to the JSON body, or undefined once it has answered itself (a stream). */
  run(call: ModelCall, checked: T, reply: FastifyReply): Promise<unknown>;
}

export interface ModelRouteContext {
  state: HttpServiceState;
  models: ModelManager;
  requestScope: RequestScope;
}

/**
 * The body's model name. A body with no usable name fails validation (400 naming the field)
 * before the lookup could answer 404 for it; an unknown model is 404 whatever else is wrong, as
 * upstream resolves the model before validating the rest.
 */
function modelName(body: unknown, validate: (body: unknown) => unknown): string {
  const model = (body as { model?: unknown } | null)?.model;
  if (typeof model === 'string' && model.trim() !== '') return model;
  validate(body);
  return '';
}

export function modelRouteHandler<T>(ctx: ModelRouteContext, spec: ModelRouteSpec<T>) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const requestId = requestIdOf(req);
    let request: RequestLifecycle | undefined;
    let counted = false;
    try {
      ctx.state.assertServing();
      const served = ctx.models.getFor(modelName(req.body, spec.validate), spec.api);
      const checked = spec.validate(req.body);
      request = RequestLifecycle.start({
        scope: ctx.requestScope,
        id: requestId,
        model: served.name,
        endpoint: spec.endpoint,
        requestType: spec.streaming?.(checked) ? 'stream' : 'unary',
      });
      const abort = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort(new CancelledError());
      });
      ctx.state.inflight++;
      counted = true;
      const body = await spec.run({ served, requestId, request, signal: abort.signal }, checked, reply);
      if (abort.signal.aborted) {
        request.cancel();
        return;
      }
      if (body === undefined) return;
      request.succeed();
      return reply.header('content-type', 'application/json').send(JSON.stringify(body));
    } catch (err) {
      request?.fail(err);
      if (!isDynamoError(err)) req.log.error({ err, requestId }, 'request failed');
      if (reply.sent || reply.raw.headersSent) return;
      return sendError(reply, err, ctx.state.overloadStatus);
    } finally {
      if (counted) ctx.state.inflight--;
    }
  };
}

/** The one output a unary worker call answers with. */
export async function onlyOutput<T>(outputs: AsyncIterable<T>, what: string): Promise<T> {
  let last: T | undefined;
  for await (const out of outputs) last = out;
  if (last === undefined) throw new InternalError(`the worker sent no ${what}`);
  return last;
}
