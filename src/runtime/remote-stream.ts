// The frontend half of one call to one worker instance: stream the worker's Annotated items, unwrap
// them, and log a failure with the ids needed to trace it. The HTTP and gRPC layers hide 5xx details
// from clients, so this log line is where a worker lost mid-stream shows up.
import { iterableOf, pushItems, WorkerLostError, type PushingIterator, type StreamSink } from '../protocols/index.js';
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

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Streams `request` to `instance` and gives `decode(data)` for each item that carries data
 * (`decode` may throw to fail the request). Failures, unless the caller gave up, are logged with
 * the request id, the instance id and how many items had arrived, then rethrown. On the token path:
 * pulled, one promise per item; pushed (`pushTo`), none of its own.
 */
export function remoteCall<T>(
  client: RequestPlaneClient,
  instance: EndpointInstance,
  request: unknown,
  ctx: CallContext,
  decode: (data: Record<string, unknown>) => T,
  logger?: RemoteCallLogger,
): AsyncIterable<T> {
  // The call starts here, not at the first pull: the worker's turn overlaps the caller's own work.
  const items = startCall(client, instance, request, ctx);
  return iterableOf(() => new RemoteItems(items[Symbol.asyncIterator](), instance, ctx, decode, logger));
}

/** The client's stream of the call; what starting it throws fails the stream at its first pull instead. */
function startCall(client: RequestPlaneClient, instance: EndpointInstance, request: unknown, ctx: CallContext): AsyncIterable<unknown> {
  try {
    return client.stream(instance, request, ctx);
  } catch (err) {
    return iterableOf(() => ({ next: () => Promise.reject(err) }));
  }
}

class RemoteItems<T> implements PushingIterator<T> {
  private received = 0;
  /** Failed or stopped: nothing more is given. */
  private over = false;

  constructor(
    private readonly inner: AsyncIterator<unknown>,
    private readonly instance: EndpointInstance,
    private readonly ctx: CallContext,
    private readonly decode: (data: Record<string, unknown>) => T,
    private readonly logger: RemoteCallLogger | undefined,
  ) {}

  next(): Promise<IteratorResult<T>> {
    if (this.over) return Promise.resolve(DONE);
    return this.inner.next().then(this.onResult, this.onFailure);
  }

  pushTo(sink: StreamSink<T>): void {
    pushItems(this.inner, {
      item: (raw) => {
        if (this.over) return;
        let out: T | null;
        try {
          out = this.unwrap(raw);
        } catch (err) {
          sink.fail(this.giveUp(err));
          return;
        }
        if (out !== null) sink.item(out);
      },
      end: () => {
        if (!this.over) sink.end();
      },
      fail: (err) => {
        if (this.over) return;
        this.over = true;
        sink.fail(this.failure(err));
      },
    });
  }

  return(value?: unknown): Promise<IteratorResult<T>> {
    this.over = true;
    return this.inner.return ? (this.inner.return(value) as Promise<IteratorResult<T>>) : Promise.resolve(DONE);
  }

  private readonly onResult = (r: IteratorResult<unknown>): IteratorResult<T> | Promise<IteratorResult<T>> => {
    if (r.done) return DONE;
    let out: T | null;
    try {
      out = this.unwrap(r.value);
    } catch (err) {
      throw this.giveUp(err);
    }
    return out === null ? this.next() : { done: false, value: out };
  };

  private readonly onFailure = (err: unknown): never => {
    this.over = true;
    throw this.failure(err);
  };

  /** An item's data decoded; null for an annotation-only item. Throws on an error event or a bad item. */
  private unwrap(item: unknown): T | null {
    const data = annotatedData(item);
    if (data === null) return null;
    const out = this.decode(data);
    this.received++;
    return out;
  }

  /** An item failed the request: the call is closed (the worker stops), and the error is the failure. */
  private giveUp(err: unknown): unknown {
    this.over = true;
    this.inner.return?.()?.catch(() => undefined);
    return this.failure(err);
  }

  /** Logs a failure the caller did not cause and gives the error to throw, naming the instance when lost. */
  private failure(err: unknown): unknown {
    const { ctx, instance } = this;
    if (!ctx.signal.aborted) {
      this.logger?.warn(
        {
          request_id: ctx.requestId,
          instance: instance.instanceId.toString(16),
          endpoint: endpointPath(instance),
          itemsReceived: this.received,
          err: (err as Error).message,
        },
        this.received > 0 ? 'worker stream failed mid-response' : 'worker request failed',
      );
    }
    // The planes do not know which instance they were talking to; the routing layers need it.
    if (err instanceof WorkerLostError && err.instanceId === undefined) return new WorkerLostError(err.message, instance.instanceId);
    return err;
  }
}
