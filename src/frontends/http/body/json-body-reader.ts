// Reads a request body and parses it as JSON without ever joining a big body on the event loop.
// Bytes are gathered here until the parse-thread threshold; a body that grows past it goes to the
// parse thread chunk by chunk as it arrives (json-body-thread.ts), where it is joined, parsed and
// checked against the request size limits. Smaller bodies are joined and parsed inline.

import type { Readable } from 'node:stream';
import type { RequestLimits, StreamedJob } from '../../../pipeline/index.js';
import { ValidationError, type DynamoError } from '../../../protocols/index.js';
import { clientClosedBody, isClientAbort } from './client-abort.js';
import { openBodyParse, type BodyParseJob } from './json-body-thread.js';
import { parseJsonBody } from './json-body.js';

export interface BodyReadOptions {
  /** Largest body in bytes (`DYN_HTTP_BODY_LIMIT_MB`); past it, `tooLarge()` answers. */
  bodyLimit: number;
  tooLarge(): DynamoError;
  /** Bodies of at least this many bytes are parsed on the parse thread. */
  parseThreadBytes: number;
  /** The request size limits the parse thread checks before the object comes back. */
  limits: RequestLimits;
}

const NO_BYTES = Buffer.alloc(0);

/** A body whose byte count disagrees with its Content-Length. */
const badLength = (): ValidationError => new ValidationError('Failed to read request body');

/**
 * Reads `payload` to its end and calls `done` once: with the parsed body, or with the error (413
 * over the body limit, 408 from the upload timers' error on the stream, 400 for a bad length or
 * bad JSON, the limits' 400s for a big body, 499 when the client closed the connection first).
 */
export function readJsonBody(
  payload: Readable,
  contentLength: string | undefined,
  opts: BodyReadOptions,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const declared = contentLength === undefined ? Number.NaN : Number(contentLength);
  if (declared > opts.bodyLimit) {
    done(opts.tooLarge());
    return;
  }
  let received = 0;
  // The bytes so far: most bodies come in one chunk, held without an array.
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let thread: StreamedJob<BodyParseJob, unknown> | undefined;
  let finished = false;

  const detach = (): void => {
    finished = true;
    payload.off('data', onData);
    payload.off('end', onEnd);
    payload.off('error', onError);
    payload.off('close', onClose);
  };
  const finish = (err: Error | null, body?: unknown): void => {
    if (finished) return;
    detach();
    if (err) thread?.abort();
    first = more = undefined;
    done(err, body);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > opts.bodyLimit) {
      finish(opts.tooLarge());
      return;
    }
    if (thread) {
      thread.write(chunk);
      return;
    }
    if (first === undefined) first = chunk;
    else (more ??= []).push(chunk);
    if (received < opts.parseThreadBytes) return;
    thread = openBodyParse();
    thread.write(first);
    for (const held of more ?? []) thread.write(held);
    first = more = undefined;
  };
  const onEnd = (): void => {
    if (!Number.isNaN(declared) && received !== declared) {
      finish(badLength());
      return;
    }
    if (thread) {
      detach();
      thread.end({ limits: opts.limits }).then((body) => done(null, body), (err: Error) => done(err));
      return;
    }
    let body: unknown;
    try {
      body = parseJsonBody(more === undefined ? (first ?? NO_BYTES) : Buffer.concat([first!, ...more], received));
    } catch (err) {
      finish(err as Error);
      return;
    }
    finish(null, body);
  };
  const onError = (err: Error): void => finish(isClientAbort(err) ? clientClosedBody() : err);
  // A client gone before the end: nobody will read an answer, but the thread must forget the bytes.
  const onClose = (): void => finish(clientClosedBody());
  // Plain listeners, not `once`: `detach` removes all four when either ends the read, and a
  // `once` wrapper is two more objects per request.
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.on('close', onClose);
  payload.resume();
}
