// Each request's logger: a pino child carrying the request id and, when the client sent one, its
// trace id. Most requests never log, and a pino child costs its bindings' serialization, so the
// child is made on the request's first log line (or first other use), not with every request.

import type { FastifyBaseLogger } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';
import { traceIdOf } from '../../observability/index.js';

/** The child of `logger` for `req`: `bindings` (the request id) and the client's trace id. */
function childFor(logger: FastifyBaseLogger, bindings: Bindings, req: IncomingMessage, opts?: ChildLoggerOptions): FastifyBaseLogger {
  const traceId = traceIdOf(req.headers.traceparent);
  return logger.child(traceId ? { ...bindings, trace_id: traceId } : bindings, opts);
}

/** A log call's arguments, passed on exactly as given (pino formats by their count). */
type LogArgs = Parameters<LogFn>;

class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly req: IncomingMessage,
  ) {}

  private get log(): FastifyBaseLogger {
    return (this.made ??= childFor(this.parent, this.bindings, this.req));
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.log.level = level;
  }

  fatal(...args: LogArgs): void {
    this.log.fatal(...args);
  }

  error(...args: LogArgs): void {
    this.log.error(...args);
  }

  warn(...args: LogArgs): void {
    this.log.warn(...args);
  }

  info(...args: LogArgs): void {
    this.log.info(...args);
  }

  debug(...args: LogArgs): void {
    this.log.debug(...args);
  }

  trace(...args: LogArgs): void {
    this.log.trace(...args);
  }

  silent(...args: LogArgs): void {
    this.log.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

/**
 * fastify's `childLoggerFactory`. A route with a log level or serializers of its own (`opts`) gets
 * its child at once, as fastify would make it.
 */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions, req: IncomingMessage): FastifyBaseLogger {
  if (opts.level !== undefined || opts.serializers !== undefined) return childFor(logger, bindings, req, opts);
  return new RequestLogger(logger, bindings, req);
}
