// A worker shutting down with requests still running past its drain grace ends each of them with an
// error item naming upstream's error type, so the frontend reads "the worker left" (and may move the
// request elsewhere) instead of a clean end with a truncated answer.

/** Upstream's error types that mean the worker, not the request, failed. */
const WORKER_LOST_TYPES = ['EngineShutdown', 'Disconnected', 'CannotConnect', 'ConnectionTimeout'];

export const ENGINE_SHUTDOWN_MESSAGE = 'EngineShutdown: the worker shut down before the request completed';

/** The abort reason of requests cut by a shutdown (an abort for any other reason sends no error item). */
export const ENGINE_SHUTDOWN = new Error(ENGINE_SHUTDOWN_MESSAGE);

/**
 * True for an error item's detail that names a lost worker: our `Type: message` text, or upstream's
 * DynamoError object (`error_type` a plain name or `{ "Backend": name }`).
 */
export function isWorkerLostDetail(detail: unknown): boolean {
  if (typeof detail === 'string') return WORKER_LOST_TYPES.some((t) => detail.startsWith(`${t}:`));
  if (detail === null || typeof detail !== 'object') return false;
  const type = (detail as { error_type?: unknown }).error_type;
  const name = typeof type === 'object' && type !== null ? (type as { Backend?: unknown }).Backend : type;
  return typeof name === 'string' && WORKER_LOST_TYPES.includes(name);
}
