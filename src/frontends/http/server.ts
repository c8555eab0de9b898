import Fastify, { LogController, type FastifyBaseLogger, type FastifyContentTypeParser, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import {
  isDynamoError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
  type DynamoError,
} from '../../protocols/index.js';
import { httpErrorReply, type ErrorEnvelope } from './error-envelope.js';
import { DEFAULT_PARSE_THREAD_KB } from './body/index.js';
import { clientClosedBody, isClientAbort, readJsonBody, type BodyReadOptions } from './body/index.js';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../../pipeline/index.js';
import { documented, HIDDEN, type RouteDoc } from './openapi/index.js';
import type { HttpServiceState } from './service-state.js';
import { requestLogger } from './request-logger.js';
import { randomUuid } from '../../runtime/index.js';
import { boundUpload, serverUploadTimeouts, type UploadTimeouts } from './body/index.js';

export interface HttpServerOptions {
  bodyLimitMb: number;
  /** Bodies of at least this many KiB are parsed on the parse thread (DYN_HTTP_BODY_PARSE_THREAD_KB). */
  parseThreadKb?: number;
  /** Request size limits, checked on the parse thread before a big body's object comes back. */
  requestLimits?: RequestLimits;
  uploadTimeouts: UploadTimeouts;
  overloadStatus: number;
  logger: Logger;
  tls?: { cert: Buffer; key: Buffer; ca?: Buffer };
  /** The shape of error replies (default OpenAI's). */
  envelope?: ErrorEnvelope;
  /** Run on every request once its route is known, before its body is read (the API keys' check). */
  gate?: RequestGate;
}

/** Whether a request goes on: false once it has been answered (refused). */
export type RequestGate = (req: FastifyRequest, reply: FastifyReply) => boolean;

const MIB = 1024 * 1024;

/** The body limit in bytes of a limit in MB. */
const limitBytes = (limitMb: number): number => Math.max(1, Math.floor(limitMb * MIB));

/** 413 for a body over `limit` bytes: the service's limit (`bodyLimitMb`) names its variable; a route's own says so. */
function bodyTooLarge(limit: number, bodyLimitMb: number): DynamoError {
  const over = limit === limitBytes(bodyLimitMb) ? `${bodyLimitMb} MB set by DYN_HTTP_BODY_LIMIT_MB` : `${limit / MIB} MB of this route`;
  return new PayloadTooLargeError(`Request body exceeds the limit of ${over}`);
}

/** Fastify's own errors, by code, as the typed errors they stand for; others stay unknown (500). */
const FRAMEWORK_ERRORS = new Map<string, (req: FastifyRequest, bodyLimitMb: number) => DynamoError>([
  ['FST_ERR_CTP_BODY_TOO_LARGE', (req, limitMb) => bodyTooLarge(req.routeOptions.bodyLimit, limitMb)],
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', () => new UnsupportedMediaTypeError()],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', () => new ValidationError('Failed to read request body')],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', () => new ValidationError('Failed to read request body')],
]);

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json(?:\s*;.*)?$/i;

/** The request id of a request: the client's `x-request-id`, or a fresh UUID (fixed once per request). */
function newRequestId(req: IncomingMessage): string {
  const h = req.headers['x-request-id'];
  const id = Array.isArray(h) ? h[0] : h;
  return id && id.length > 0 && id.length <= 256 ? id : randomUuid();
}

export function requestIdOf(req: FastifyRequest): string {
  return req.id;
}

/** Every request's log lines carry its request id and, when the client sent one, its trace id. */
const requestLogging = { genReqId: newRequestId, childLoggerFactory: requestLogger };

/**
 * The content type of JSON answers, as fastify completes `application/json` on a text reply: given
 * whole, it is not parsed and joined again on each answer.
 */
export const JSON_REPLY_TYPE = 'application/json; charset=utf-8';

export function sendError(reply: FastifyReply, err: unknown, overloadStatus: number, envelope: ErrorEnvelope = httpErrorReply): FastifyReply {
  const { status, body } = envelope(err, overloadStatus);
  return reply.code(status).header('content-type', JSON_REPLY_TYPE).send(JSON.stringify(body));
}

/**
 * The fastify instance with the HTTP behaviour every route shares: JSON bodies (tolerant of raw
 * control characters, 415 for other media types, 413 over the limit, 408 when too slow), flat
 * error bodies, the `Route not found` 404, and `x-request-id` echo.
 */
export function createHttpServer(opts: HttpServerOptions, state: HttpServiceState): FastifyInstance {
  const bodyLimit = limitBytes(opts.bodyLimitMb);
  const parseThreadBytes = (opts.parseThreadKb ?? DEFAULT_PARSE_THREAD_KB) * 1024;
  const app = Fastify({
    bodyLimit,
    loggerInstance: opts.logger as FastifyBaseLogger,
    // Per-request log lines cost more than the request itself at high rates.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    ...requestLogging,
    // Bounds receiving the request only: long generations are never cut by it.
    ...serverUploadTimeouts(opts.uploadTimeouts),
    keepAliveTimeout: 75_000,
    return503OnClosing: false,
    ...(opts.tls && {
      https: { cert: opts.tls.cert, key: opts.tls.key, ca: opts.tls.ca, requestCert: opts.tls.ca !== undefined, rejectUnauthorized: opts.tls.ca !== undefined },
    }),
  }) as unknown as FastifyInstance;

  const bodyRead: BodyReadOptions = {
    bodyLimit,
    tooLarge: () => bodyTooLarge(bodyLimit, opts.bodyLimitMb),
    parseThreadBytes,
    limits: opts.requestLimits ?? DEFAULT_REQUEST_LIMITS,
  };
  /** The JSON parser of bodies up to `read.bodyLimit`. */
  const jsonParser = (read: BodyReadOptions): FastifyContentTypeParser => (req, payload, done) => {
    const ct = req.headers['content-type'] ?? '';
    if (!JSON_CONTENT_TYPE.test(ct)) {
      done(new UnsupportedMediaTypeError(), undefined);
      return;
    }
    readJsonBody(payload, req.headers['content-length'], read, (err, body) => done(err, body));
  };
  parseBodiesWith(app, jsonParser(bodyRead));
  // A route with a body limit of its own gets a parser of its own, in its own scope: no route
  // lookup per request (fastify builds a new routeOptions object on each read).
  ownLimitParsers.set(app.server, (limit) => jsonParser({ ...bodyRead, bodyLimit: limit, tooLarge: () => bodyTooLarge(limit, opts.bodyLimitMb) }));

  const debugRequests = opts.logger.isLevelEnabled('debug');
  const { uploadTimeouts, gate } = opts;
  // One hook, in fastify's callback form: no promise and microtask hop per hook and request. A
  // request the gate refused is answered and goes no further (no done()).
  app.addHook('onRequest', (req, reply, done) => {
    const id = req.headers['x-request-id'];
    if (typeof id === 'string' && id.length > 0) reply.header('x-request-id', id);
    boundUpload(req, reply, uploadTimeouts);
    // On the raw response so that hijacked (streamed) replies are logged too; path only, no query.
    if (debugRequests) {
      reply.raw.once('finish', () => req.log.debug({ method: req.method, path: req.url.split('?')[0], status: reply.raw.statusCode }, 'request finished'));
    }
    if ((req.raw as IncomingMessage & { upgrade?: boolean }).upgrade) closeAfterAnswer(reply);
    if (gate === undefined || gate(req, reply)) done();
  });

  app.setErrorHandler(frameworkErrorHandler(opts.bodyLimitMb, state, opts.envelope));

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    sendError(reply, new NotFoundError(`Route not found: ${req.method} ${path}`), state.overloadStatus, opts.envelope);
  });

  return app;
}

/** Each server's JSON parser for a body limit of a route's own, by the HTTP server its scopes share. */
const ownLimitParsers = new WeakMap<object, (limit: number) => FastifyContentTypeParser>();

/** Parses JSON bodies of up to `limit` bytes in `scope` (a route's own scope: http-route.ts). */
export function ownBodyLimit(scope: FastifyInstance, limit: number): void {
  const parser = ownLimitParsers.get(scope.server);
  if (!parser) return;
  parseBodiesWith(scope, parser(limit));
}

/**
 * Every body of `scope` goes to `parser`. It is also named for `application/json`, the type nearly
 * every request sends: fastify caches the parser it finds for a content type but not the catch-all,
 * which it reaches only after parsing the header anew on each request.
 */
function parseBodiesWith(scope: FastifyInstance, parser: FastifyContentTypeParser): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', parser);
  scope.addContentTypeParser('application/json', parser);
}

/**
 * A WebSocket upgrade request (the Responses route takes them) answered over HTTP instead, refused
 * or to a route that takes none, has no HTTP server behind its connection any more: its connection
 * closes once the answer is out (or failed), where fastify's onResponse hooks would run. (Node marks
 * such a request `upgrade`, undeclared in its types.) Only these requests pay for the listeners.
 */
function closeAfterAnswer(reply: FastifyReply): void {
  const res = reply.raw;
  const close = (): void => {
    res.off('finish', close);
    res.off('error', close);
    res.socket?.destroy();
  };
  res.on('finish', close);
  res.on('error', close);
}

/**
 * The typed error a framework error stands for: fastify's own by code, and a client abort while the
 * body was still arriving (fastify's buffer reader, which Triton's routes use, passes it on as is).
 */
function typedFrameworkError(err: unknown, req: FastifyRequest, bodyLimitMb: number): unknown {
  const fromFramework = FRAMEWORK_ERRORS.get((err as { code?: string }).code ?? '');
  if (fromFramework) return fromFramework(req, bodyLimitMb);
  return !req.raw.complete && isClientAbort(err) ? clientClosedBody() : err;
}

/**
 * The error handler of a fastify scope: fastify's own errors (body parsing, limits) mapped to the
 * typed errors they stand for, every error answered in `envelope`'s shape.
 */
export function frameworkErrorHandler(bodyLimitMb: number, state: HttpServiceState, envelope: ErrorEnvelope = httpErrorReply) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const mapped = typedFrameworkError(err, req, bodyLimitMb);
    if (!isDynamoError(mapped)) req.log.error({ err }, 'unhandled error in %s %s', req.method, req.url);
    // A client gone mid-upload is routine: one line for whoever is looking, no stack.
    else if (mapped.kind === 'cancelled') req.log.debug({ method: req.method, path: req.url.split('?')[0] }, mapped.message);
    return sendError(reply, mapped, state.overloadStatus, envelope);
  };
}

const NOT_POST = ['GET', 'PUT', 'DELETE', 'PATCH'] as const;

/**
 * Register a POST route plus a 405 (`Allow: POST`) answer for the other methods on that path, but
 * those in `takenElsewhere` (a GET that upgrades to a WebSocket, registered by its route). With
 * `doc`, the route's body, answers and summary appear in /openapi.json (it is listed either way).
 */
export function postRoute(
  app: FastifyInstance,
  url: string,
  handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  doc?: RouteDoc,
  takenElsewhere: readonly (typeof NOT_POST)[number][] = [],
): void {
  app.post(url, doc ? documented(doc) : {}, handler);
  app.route({ method: NOT_POST.filter((m) => !takenElsewhere.includes(m)), url, ...HIDDEN, handler: postOnly(url) });
}

/** The 405 (`Allow: POST`) answer of a POST route's path to any other method. */
export function postOnly(url: string) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
    sendError(reply.header('allow', 'POST'), new MethodNotAllowedError(`Method ${req.method} not allowed on ${url}; use POST`), 0);
}
