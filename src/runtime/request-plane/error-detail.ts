// A worker's typed error across the request plane. The wire carries an error as text; a client
// error (a 4xx the engine refused the request with) keeps its kind as a `[kind] ` prefix, so the
// frontend answers with the engine's status and message instead of a 500; a lost upstream reads as
// upstream's `Disconnected` type, so the request may move to another worker. Other errors travel as
// plain text, as before.
import { DynamoError, ERROR_KINDS, InternalError, WorkerLostError, type ErrorKind } from '../../protocols/index.js';
import { isWorkerLostDetail } from './engine-shutdown.js';

const PREFIX = /^\[([a-z_]+)\] /;

/** The kinds a worker may hand to the client as they are: the request's fault, or the engine's load. */
function crossesTheWire(kind: ErrorKind): boolean {
  const status = ERROR_KINDS[kind].http;
  return (status >= 400 && status < 500 && kind !== 'cancelled') || kind === 'overload';
}

/** The text a worker sends for `err`. */
export function errorDetailOf(err: Error): string {
  if (err instanceof WorkerLostError) return isWorkerLostDetail(err.message) ? err.message : `Disconnected: ${err.message}`;
  return err instanceof DynamoError && crossesTheWire(err.kind) ? `[${err.kind}] ${err.message}` : err.message;
}

/** The typed error of a worker's error text, or an InternalError with `context` before the text. */
export function errorFromDetail(detail: string, context: string): DynamoError {
  if (isWorkerLostDetail(detail)) return new WorkerLostError(`worker lost: ${detail}`);
  const m = PREFIX.exec(detail);
  const kind = m?.[1] as ErrorKind | undefined;
  if (kind !== undefined && kind in ERROR_KINDS && crossesTheWire(kind)) return new DynamoError(kind, detail.slice(m![0].length));
  return new InternalError(`${context}: ${detail}`);
}
