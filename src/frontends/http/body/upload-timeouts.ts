// Bounds on how slowly a client may send its request body. Without them one slow-body connection
// (a trickle of bytes, or a promised Content-Length that never arrives) holds a socket and a parser
// forever, and a hundred of them hold a hundred. The idle timer alone is not enough: a byte every
// few seconds keeps it fed, so a deadline bounds the whole upload too. Only the upload is bounded:
// once the body is in, a generation may take as long as it takes.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequestTimeoutError } from '../../../protocols/index.js';

export interface UploadTimeouts {
  /** `DYN_HTTP_BODY_TIMEOUT_SECS`: longest silence while a body is arriving. */
  bodyTimeoutSecs: number;
  /** `DYN_HTTP_UPLOAD_TIMEOUT_SECS`: longest time from the request's headers to its last body byte. */
  uploadTimeoutSecs: number;
}

/** The option table's defaults, for services built without a config (side servers, tests). */
export const DEFAULT_UPLOAD_TIMEOUTS: UploadTimeouts = { bodyTimeoutSecs: 30, uploadTimeoutSecs: 60 };

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Arms both timers on a request that carries a body (run from the server's onRequest hook) and
 * disarms them when the body has ended. On expiry the body parser fails with a 408 naming the
 * limit (the route's error envelope answers) and the connection closes after that answer, so the
 * rest of the body is never waited for.
 */
export function boundUpload(req: FastifyRequest, reply: FastifyReply, timeouts: UploadTimeouts): void {
  // The timers are armed once the bytes that brought the headers have been parsed: a small body
  // came with them, and a request that is complete then (most are) costs no timers, listeners or
  // socket timeout changes. (Not on the next tick: Node runs the tick queue between the headers'
  // callback and the body's.) The requests of one turn of the event loop share one immediate.
  if (!hasBody(req) || req.raw.complete) return;
  if (toArm.length === 0) setImmediate(armAll);
  toArm.push(req, reply, timeouts);
}

/** The requests whose timers the next immediate arms, as flat triples (request, reply, timeouts). */
const toArm: (FastifyRequest | FastifyReply | UploadTimeouts)[] = [];

function armAll(): void {
  const pending = toArm.splice(0);
  for (let i = 0; i < pending.length; i += 3) arm(pending[i] as FastifyRequest, pending[i + 1] as FastifyReply, pending[i + 2] as UploadTimeouts);
}

/** Arms both timers on a request whose body is still to come; disarmed when it has ended or been answered. */
function arm(req: FastifyRequest, reply: FastifyReply, timeouts: UploadTimeouts): void {
  // Complete, or answered (the timers would be disarmed at once).
  if (req.raw.complete || reply.sent || reply.raw.writableEnded) return;
  const raw = req.raw;
  const socket = raw.socket;
  let done = false;
  const expire = (message: string): void => {
    if (done) return;
    disarm();
    // Nobody is reading the body (no route, or already answered): just close.
    if (reply.sent || raw.listenerCount('error') === 0) {
      socket.destroy();
      return;
    }
    reply.header('connection', 'close');
    // The body parser listens for errors on the request stream: this ends its wait.
    raw.emit('error', new RequestTimeoutError(message));
  };
  const onIdle = (): void =>
    expire(`Request body not received: no data for ${timeouts.bodyTimeoutSecs} s (DYN_HTTP_BODY_TIMEOUT_SECS)`);
  const deadline = setTimeout(
    () => expire(`Request body not received within ${timeouts.uploadTimeoutSecs} s (DYN_HTTP_UPLOAD_TIMEOUT_SECS)`),
    timeouts.uploadTimeoutSecs * 1000,
  );
  // A guard, not work: it never keeps a stopping process alive.
  deadline.unref();
  const disarm = (): void => {
    done = true;
    clearTimeout(deadline);
    raw.off('timeout', onIdle);
    if (!socket.destroyed) socket.setTimeout(0);
  };
  // The socket's idle timer is refreshed by every byte the HTTP parser reads; its expiry is
  // reported on the incomplete request, where a listener keeps Node from destroying the socket.
  socket.setTimeout(timeouts.bodyTimeoutSecs * 1000);
  raw.on('timeout', onIdle);
  raw.once('end', disarm);
  raw.once('close', disarm);
  // Answered before the body ended (413, 401): the rest of the body is never read, and the
  // request may stay open on a kept-alive connection; the timers must not outlive the answer.
  reply.raw.once('close', disarm);
}

/**
 * Node's own limit on receiving a whole request (headers included), as a backstop for what the
 * hook does not see (slow headers, bodies of requests no route reads): it answers 408 itself and
 * closes. It is checked every 30 s, so it is coarse; it never applies to the response.
 */
export function serverUploadTimeouts(timeouts: UploadTimeouts): { requestTimeout: number } {
  return { requestTimeout: timeouts.uploadTimeoutSecs * 1000 };
}
