// Lost workers: the chosen instance's stream is watched for the signs of a lost worker, a
// WorkerLostError (unreachable, connection reset, stream ended before completion) or silence past
// the stall timeout (DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS: the call is then aborted and fails with
// a WorkerLostError). Either way the instance is marked down in the shared health record, so no
// router of this process picks it again until it is back, and the error goes on to the layers
// above (migration may re-send the request).
import { WorkerLostError } from '../../protocols/index.js';
import type { InstanceHealth } from '../instance-health.js';
import { targetOf, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';

export function lostWorker<Req, Out>(router: Pick<RouterView<Req, Out>, 'health' | 'stallTimeoutMs'>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const id = targetOf(route).id;
    const stallMs = router.stallTimeoutMs;
    const stall = stallMs ? linkedAbort(route.ctx.signal) : null;
    const ctx = stall ? { ...route.ctx, signal: stall.abort.signal } : route.ctx;
    let stream: AsyncIterable<Out>;
    try {
      stream = next({ ...route, ctx });
    } catch (err) {
      stall?.unlink();
      reportLost(router.health, id, err);
      throw err;
    }
    return {
      [Symbol.asyncIterator]: () => new WatchedStream(stream[Symbol.asyncIterator](), id, router.health, stall && stallMs ? { ms: stallMs, ...stall } : null),
    };
  };
}

/**
 * A controller that also aborts when `parent` does: the call's signal, which the watchdog can abort
 * too. One listener on the parent, taken off when the stream ends, costs a fraction of an
 * `AbortSignal.any` (a new signal with weak references to its sources) on every request.
 */
function linkedAbort(parent: AbortSignal): { abort: AbortController; unlink(): void } {
  const abort = new AbortController();
  if (parent.aborted) {
    abort.abort(parent.reason);
    return { abort, unlink: () => undefined };
  }
  const follow = (): void => abort.abort(parent.reason);
  parent.addEventListener('abort', follow, { once: true });
  return { abort, unlink: () => parent.removeEventListener('abort', follow) };
}

function reportLost(health: InstanceHealth, id: bigint, err: unknown): void {
  if (err instanceof WorkerLostError) health.markDown(id, err.message);
}

interface StallWatch {
  ms: number;
  /** Aborts the call: the engine (or the worker, over the wire) stops its work. */
  abort: AbortController;
  /** Stops following the caller's signal: the stream is over. */
  unlink(): void;
}

/**
 * One watchdog timer per stream, not one per item: it wakes once per timeout period and fires only
 * when the consumer has been waiting for an item for the whole period. A slow consumer is not a
 * stalled worker, so time counts only while a `next()` is pending.
 */
class WatchedStream<Out> implements AsyncIterator<Out> {
  private waitingSince = 0;
  private waiting = false;
  private done = false;
  private timer: NodeJS.Timeout | null = null;
  /** Fails the pending `next()` when the stall timeout fires. */
  private failPending: ((err: Error) => void) | null = null;
  private stalled = false;

  constructor(
    private readonly inner: AsyncIterator<Out>,
    private readonly id: bigint,
    private readonly health: InstanceHealth,
    private readonly stall: StallWatch | null,
  ) {
    if (stall) this.arm(stall.ms);
  }

  next(): Promise<IteratorResult<Out>> {
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    if (!this.stall) return this.inner.next().then(this.onItem, this.onError);
    this.waiting = true;
    this.waitingSince = performance.now();
    // One promise the watchdog can fail, rather than a race per item (each race would leave a
    // reaction on a shared stall promise for the stream's whole life).
    return new Promise<IteratorResult<Out>>((resolve, reject) => {
      this.failPending = reject;
      this.inner.next().then(
        (r) => {
          // After a stall the call already failed: whatever the worker sends late is dropped.
          if (!this.stalled) resolve(this.onItem(r));
        },
        (err: unknown) => {
          if (this.stalled) return;
          try {
            this.onError(err);
          } catch (thrown) {
            reject(thrown);
          }
        },
      );
    });
  }

  return(value?: unknown): Promise<IteratorResult<Out>> {
    const stalled = this.done && this.stall?.abort.signal.aborted;
    this.finish();
    // After a stall the inner call is stuck in its pending step and already aborted: nothing to wait for.
    if (stalled || !this.inner.return) return Promise.resolve({ done: true, value: undefined });
    return this.inner.return(value);
  }

  private readonly onItem = (r: IteratorResult<Out>): IteratorResult<Out> => {
    this.waiting = false;
    this.failPending = null;
    if (r.done) this.finish();
    return r;
  };

  private readonly onError = (err: unknown): never => {
    this.waiting = false;
    this.failPending = null;
    this.finish();
    reportLost(this.health, this.id, err);
    throw err;
  };

  private finish(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stall?.unlink();
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.check(), delayMs);
  }

  private check(): void {
    const stall = this.stall!;
    const silentMs = this.waiting ? performance.now() - this.waitingSince : 0;
    if (silentMs < stall.ms) {
      this.arm(stall.ms - silentMs);
      return;
    }
    const secs = stall.ms / 1000;
    const err = new WorkerLostError(`backend response inactivity timeout: worker ${this.id.toString(16)} sent nothing for ${secs} s`, this.id);
    const fail = this.failPending;
    this.stalled = true;
    this.waiting = false;
    this.failPending = null;
    this.finish();
    reportLost(this.health, this.id, err);
    stall.abort.abort();
    fail?.(err);
  }
}
