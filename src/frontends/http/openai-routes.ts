import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServedModel, ModelManager } from '../../models/index.js';
import {
  errorKindOf,
  generateChoices,
  RequestLifecycle,
  ResponseFold,
  validateChatRequest,
  validateCompletionRequest,
  type DecodedStep,
  type PreparedRequest,
} from '../../pipeline/index.js';
import { CancelledError, isDynamoError, type RequestScope } from '../../protocols/index.js';
import { streamErrorJson } from './error-envelope.js';
import { ChunkSerializer, foldedResponse, type ApiKind } from './openai-chunks.js';
import { CHAT_DOC, COMPLETIONS_DOC } from './openai-route-docs.js';
import { applyRoutingHeaders } from './routing-headers.js';
import { postRoute, requestIdOf, sendError } from './server.js';
import type { HttpServiceState } from './service-state.js';
import { SseWriter } from './sse-writer.js';
import { peekFirst, withInactivityTimeout } from './stream-guard.js';

export interface OpenAiRouteOptions {
  chatPath: string;
  completionsPath: string;
  /** DYN_ENABLE_FORCE_INCLUDE_USAGE: every stream ends with a usage chunk. */
  forceIncludeUsage: boolean;
  /** The frontend whose request events these requests publish. */
  requestScope: RequestScope;
  /** DYN_HTTP_SSE_KEEP_ALIVE_INTERVAL_MS */
  sseKeepAliveMs?: number;
  /** DYN_HTTP_PRE_COMMIT_ERROR_PEEK_MS */
  preCommitErrorPeekMs?: number;
  /** DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS */
  backendStreamTimeoutSecs?: number;
}

/** The request fields the HTTP layer itself acts on; the rest belongs to the preprocessor. */
interface StreamFlags {
  model: string;
  stream?: boolean | null;
  n?: number | null;
  stream_options?: { include_usage?: boolean | null } | null;
}

export function registerOpenAiRoutes(
  app: FastifyInstance,
  state: HttpServiceState,
  models: ModelManager,
  opts: OpenAiRouteOptions,
): void {
  const handler = (kind: ApiKind) => (req: FastifyRequest, reply: FastifyReply) =>
    handleInference(kind, req, reply, state, models, opts);
  postRoute(app, opts.chatPath, handler('chat'), CHAT_DOC);
  postRoute(app, opts.completionsPath, handler('completions'), COMPLETIONS_DOC);
}

/** The `endpoint` label of request metrics. */
const ENDPOINT_LABEL: Record<ApiKind, string> = { chat: 'chat_completions', completions: 'completions' };

/**
 * The requested model name. A body with no usable name fails validation here (400 naming the
 * problem), before the model lookup could answer 404 for it.
 */
function modelNameOf(kind: ApiKind, body: unknown): string {
  const model = (body as { model?: unknown } | null)?.model;
  if (typeof model === 'string' && model.trim() !== '') return model;
  if (kind === 'chat') validateChatRequest(body);
  else validateCompletionRequest(body);
  return '';
}

async function handleInference(
  kind: ApiKind,
  req: FastifyRequest,
  reply: FastifyReply,
  state: HttpServiceState,
  models: ModelManager,
  opts: OpenAiRouteOptions,
): Promise<unknown> {
  const requestId = requestIdOf(req);
  let counted = false;
  let request: RequestLifecycle | undefined;
  try {
    state.assertServing();
    // Upstream resolves the model before validating the body: an unknown model is 404 whatever else is wrong.
    const served = models.get(modelNameOf(kind, req.body));
    const streaming = (req.body as { stream?: unknown }).stream === true;
    request = RequestLifecycle.start({
      scope: opts.requestScope,
      id: requestId,
      model: served.name,
      endpoint: ENDPOINT_LABEL[kind],
      requestType: streaming ? 'stream' : 'unary',
    });
    applyRoutingHeaders(req.body, req.headers);
    const prepared = await prepare(kind, req.body, served);
    const flags = prepared.flags;
    const n = flags.n ?? 1;
    const abort = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort(new CancelledError());
    });
    state.inflight++;
    counted = true;
    const steps = generateChoices(
      { engine: served.router, tokenTable: served.tokenTable },
      prepared.runs.map((r) => ({ request: r.request, promptTokens: r.promptTokens })),
      n,
      requestId,
      abort.signal,
    );
    const promptTokens = prepared.runs.reduce((sum, r) => sum + r.promptTokens, 0);
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${requestId}`;
    const created = Math.floor(Date.now() / 1000);
    const includeUsage = opts.forceIncludeUsage || flags.stream_options?.include_usage === true;
    const fold = new ResponseFold({ promptTokens, collectText: !flags.stream, request });
    const guarded = withInactivityTimeout(
      await peekFirst(steps[Symbol.asyncIterator](), opts.preCommitErrorPeekMs),
      opts.backendStreamTimeoutSecs,
      () => abort.abort(),
    );
    if (flags.stream) {
      reply.hijack();
      const serializer = new ChunkSerializer(kind, id, created, flags.model);
      const annotations = annotationEvents(prepared.runs[0]!, requestId);
      await streamResponse(reply, serializer, guarded, fold, includeUsage, request, opts.sseKeepAliveMs, annotations);
      return;
    }
    for await (const step of guarded) fold.step(step);
    if (abort.signal.aborted) {
      request.cancel();
      return;
    }
    request.succeed();
    return reply
      .header('content-type', 'application/json')
      .send(JSON.stringify(foldedResponse(kind, id, created, flags.model, fold.choices(), fold.usage())));
  } catch (err) {
    request?.fail(err);
    if (!isDynamoError(err)) req.log.error({ err, requestId }, 'request failed');
    if (reply.sent || reply.raw.headersSent) return;
    return sendError(reply, err, state.overloadStatus);
  } finally {
    if (counted) state.inflight--;
  }
}

/**
 * The out-of-band events `nvext.annotations` asks for, sent before the first chunk:
 * `formatted_prompt` (the rendered prompt), `token_ids` (the prompt's ids) and `request_id`.
 */
function annotationEvents(run: PreparedRequest, requestId: string): [string, string][] {
  const events: [string, string][] = [];
  for (const name of run.request.annotations ?? []) {
    if (name === 'formatted_prompt' && run.formattedPrompt !== undefined) events.push([name, JSON.stringify(run.formattedPrompt)]);
    else if (name === 'token_ids') events.push([name, JSON.stringify(run.request.token_ids)]);
    else if (name === 'request_id') events.push([name, JSON.stringify(requestId)]);
  }
  return events;
}

interface Prepared {
  flags: StreamFlags;
  runs: PreparedRequest[];
}

async function prepare(kind: ApiKind, body: unknown, served: ServedModel): Promise<Prepared> {
  if (kind === 'chat') {
    const request = served.preprocessor.validateChat(body);
    return { flags: request, runs: [await served.preprocessor.preprocessChat(request)] };
  }
  const request = served.preprocessor.validateCompletion(body);
  return { flags: request, runs: await served.preprocessor.preprocessCompletion(request) };
}

async function streamResponse(
  reply: FastifyReply,
  serializer: ChunkSerializer,
  steps: AsyncIterable<DecodedStep>,
  fold: ResponseFold,
  includeUsage: boolean,
  request: RequestLifecycle,
  keepAliveMs: number | undefined,
  annotations: [string, string][],
): Promise<void> {
  const headers: Record<string, string> = {};
  const echoed = reply.getHeader('x-request-id');
  if (typeof echoed === 'string') headers['x-request-id'] = echoed;
  const sse = new SseWriter(reply.raw, headers, keepAliveMs);
  for (const [name, json] of annotations) sse.annotation(name, json);
  try {
    for await (const step of steps) {
      if (sse.isClosed) break;
      const delta = fold.step(step);
      if (delta) sse.data(serializer.choice(delta));
    }
    // A client that went away gets no [DONE]: nobody is listening.
    if (sse.isClosed) {
      request.cancel();
      return;
    }
    if (includeUsage) sse.data(serializer.usage(fold.usage()));
    sse.done();
    request.succeed();
  } catch (err) {
    const kind = sse.isClosed ? 'cancelled' : errorKindOf(err);
    request.fail(err, kind);
    if (kind !== 'cancelled') {
      const log = { err, id: serializer.id, model: serializer.model, kind, status: isDynamoError(err) ? err.httpStatus : 500 };
      if (isDynamoError(err) && err.httpStatus < 500) reply.log.info(log, 'stream ended with a request error');
      else reply.log.error(log, 'stream failed');
    }
    if (sse.isClosed) return;
    // A timed-out stream is killed, not completed: no error event, no [DONE] (as upstream).
    if (kind === 'response_timeout') {
      sse.end();
      return;
    }
    sse.data(streamErrorJson(err));
    sse.done();
  }
}
