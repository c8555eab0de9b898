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
    const stall = stallMs ? new AbortController() : null;
    const ctx = stall ? { ...route.ctx, signal: AbortSignal.any([route.ctx.signal, stall.signal]) } : route.ctx;
    let stream: AsyncIterable<Out>;
    try {
      stream = next({ ...route, ctx });
    } catch (err) {
      reportLost(router.health, id, err);
      throw err;
    }
    return {
      [Symbol.asyncIterator]: () => new WatchedStream(stream[Symbol.asyncIterator](), id, router.health, stall && stallMs ? { ms: stallMs, abort: stall } : null),
    };
  };
}

function reportLost(health: InstanceHealth, id: bigint, err: unknown): void {
  if (err instanceof WorkerLostError) health.markDown(id, err.message);
}

interface StallWatch {
  ms: number;
  /** Aborts the call: the engine (or the worker, over the wire) stops its work. */
  abort: AbortController;
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
  /** Rejects when the stall timeout fires; raced against each pending item. */
  private readonly stalled: Promise<never> | null = null;
  private fail: ((err: Error) => void) | null = null;

  constructor(
    private readonly inner: AsyncIterator<Out>,
    private readonly id: bigint,
    private readonly health: InstanceHealth,
    private readonly stall: StallWatch | null,
  ) {
    if (!stall) return;
    this.stalled = new Promise<never>((_, reject) => (this.fail = reject));
    this.stalled.catch(() => undefined);
    this.arm(stall.ms);
  }

  next(): Promise<IteratorResult<Out>> {
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    this.waiting = true;
    this.waitingSince = performance.now();
    const item = this.inner.next();
    return (this.stalled ? Promise.race([item, this.stalled]) : item).then(this.onItem, this.onError);
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
    if (r.done) this.finish();
    return r;
  };

  private readonly onError = (err: unknown): never => {
    this.waiting = false;
    this.finish();
    reportLost(this.health, this.id, err);
    throw err;
  };

  private finish(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
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
    this.fail!(new WorkerLostError(`backend response inactivity timeout: worker ${this.id.toString(16)} sent nothing for ${secs} s`, this.id));
    stall.abort.abort();
  }
}
