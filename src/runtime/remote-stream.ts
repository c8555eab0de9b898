// The frontend half of one call to one worker instance: stream the worker's Annotated items, unwrap
// them, and log a failure with the ids needed to trace it. The HTTP and gRPC layers hide 5xx details
// from clients, so this log line is where a worker lost mid-stream shows up.
import { WorkerLostError } from '../protocols/index.js';
import { endpointPath, type EndpointInstance } from './discovery/index.js';
import { errorFromDetail, isWorkerLostDetail, type CallContext, type RequestPlaneClient } from './request-plane/index.js';

export interface RemoteCallLogger {
  warn(obj: object, msg: string): void;
}

interface Annotated {
  data?: Record<string, unknown> | null;
  event?: string | null;
  comment?: string[] | null;
  error?: unknown;
}

function describe(detail: unknown): string {
  return typeof detail === 'string' ? detail : JSON.stringify(detail, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** The payload of an upstream Annotated item; null for annotation-only items; throws on error events. */
export function annotatedData(item: unknown): Record<string, unknown> | null {
  const a = item as Annotated;
  if (a.event === 'error') {
    const detail = a.error ?? a.comment?.join('; ') ?? 'unknown error';
    // A worker that left (shut down past its drain grace) is a lost worker: the request may move.
    if (isWorkerLostDetail(detail)) throw new WorkerLostError(`worker lost: ${describe(detail)}`);
    throw errorFromDetail(describe(detail), 'worker error');
  }
  return a.data ?? null;
}

/**
 * Streams `request` to `instance` and yields `decode(data)` for each item that carries data
 * (`decode` may throw to fail the request). Failures, unless the caller gave up, are logged with
 * the request id, the instance id and how many items had arrived, then rethrown.
 */
export async function* remoteCall<T>(
  client: RequestPlaneClient,
  instance: EndpointInstance,
  request: unknown,
  ctx: CallContext,
  decode: (data: Record<string, unknown>) => T,
  logger?: RemoteCallLogger,
): AsyncGenerator<T> {
  let received = 0;
  try {
    for await (const item of client.stream(instance, request, ctx)) {
      const data = annotatedData(item);
      if (!data) continue;
      const out = decode(data);
      received++;
      yield out;
    }
  } catch (err) {
    if (!ctx.signal.aborted) {
      logger?.warn(
        {
          request_id: ctx.requestId,
          instance: instance.instanceId.toString(16),
          endpoint: endpointPath(instance),
          itemsReceived: received,
          err: (err as Error).message,
        },
        received > 0 ? 'worker stream failed mid-response' : 'worker request failed',
      );
    }
    // The planes do not know which instance they were talking to; the routing layers need it.
    if (err instanceof WorkerLostError && err.instanceId === undefined) throw new WorkerLostError(err.message, instance.instanceId);
    throw err;
  }
}
