// A client that closes its connection while its request body is arriving: nobody will read an
// answer and nothing is wrong with the server, so it is one typed, quiet outcome (499, logged at
// debug without a stack) rather than an unexpected error. Node reports it as an `aborted` error
// (ECONNRESET) on the request stream, or, when no error listener saw it, only as the stream's close.

import { CancelledError } from '../../../protocols/index.js';

/** The error codes a request stream fails with when its client went away. */
const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** The outcome of a body its client stopped sending by closing the connection. */
export function clientClosedBody(): CancelledError {
  return new CancelledError('Client closed the connection before the request body ended');
}

/** Whether `err`, seen on a request stream, means its client closed the connection. */
export function isClientAbort(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return ABORT_CODES.has((err as NodeJS.ErrnoException).code ?? '') || err.message === 'aborted';
}
