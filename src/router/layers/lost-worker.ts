// Lost workers: the chosen instance's stream is watched for the signs of a lost worker, a
// WorkerLostError (unreachable, connection reset, stream ended before completion) or silence. With
// the process's WorkerLiveness, silence past the stream's bound gets its worker pinged, and an
// unresponsive or stuck worker fails all its streams (health/worker-liveness.ts); without it, only
// silence past the stall timeout (DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS) fails the stream. A silent
// call is aborted and fails with a WorkerLostError. Either way the instance is marked down in the
// shared health record, so no router of this process picks it again until it is back, and the
// error goes on to the layers above (migration may re-send the request).
import { callController, callEnded, followAbort, unfollowAbort, WorkerLostError, type AbortFollower } from '../../protocols/index.js';
import type { InstanceHealth } from '../health/index.js';
import { observeStream, watchSilence, type SilenceWatch, type StreamObserver } from '../observed-stream.js';
import { targetOf, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';

type Watched<Req, Out> = Pick<RouterView<Req, Out>, 'health' | 'stallTimeoutMs' | 'liveness' | 'requests'>;

export function lostWorker<Req, Out>(router: Watched<Req, Out>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const id = targetOf(route).id;
    const stallMs = router.stallTimeoutMs;
    const liveness = router.liveness;
    if (!liveness && !stallMs) {
      let stream: AsyncIterable<Out>;
      try {
        stream = next(route);
      } catch (err) {
        reportLost(router.health, id, err);
        throw err;
      }
      return observeStream(stream, { onEnd: (error) => error !== undefined && reportLost(router.health, id, error) });
    }
    const call = new WatchedCall(router.health, id, route.ctx.signal);
    let stream: AsyncIterable<Out>;
    try {
      stream = next({ ...route, ctx: { ...route.ctx, signal: call.signal } });
    } catch (err) {
      call.onEnd(err);
      throw err;
    }
    const watch = liveness ? liveness.watch(id, router.requests.promptTokens(route.request), stallMs, call.stop) : new StallWatch(id, stallMs, call.stop);
    call.watch = watch;
    return watchSilence(observeStream(stream, call), watch);
  };
}

/**
 * One watched call: its signal follows the caller's and is aborted when the call goes silent; it
 * hears the stream's end. One object per call (it follows the caller's signal itself, via
 * `handleEvent`) rather than a link and observers of closures; its controller is one an ended
 * call no longer uses, when there is one (protocols/streams/call-signals.ts).
 */
class WatchedCall implements StreamObserver<unknown>, AbortFollower {
  private readonly controller = callController();
  watch: (SilenceWatch & { release?(): void }) | null = null;
  /** Stops the call (the watchdog's `onSilent`). */
  readonly stop = (): void => this.controller.abort();

  constructor(
    private readonly health: InstanceHealth,
    private readonly id: bigint,
    private readonly parent: AbortSignal,
  ) {
    // Followed without `once`: aborting an aborted controller does nothing.
    if (parent.aborted) this.controller.abort(parent.reason);
    else followAbort(parent, this);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.controller.abort(this.parent.reason);
  }

  onEnd(error?: unknown): void {
    unfollowAbort(this.parent, this);
    // A failed call keeps its controller: a silent one is stopped (aborted) after its stream failed.
    if (error === undefined) callEnded(this.controller);
    this.watch?.release?.();
    if (error !== undefined) reportLost(this.health, this.id, error);
  }
}

/** Without the liveness watch: silence past the stall timeout fails the stream. */
class StallWatch implements SilenceWatch {
  constructor(
    private readonly id: bigint,
    readonly ms: number,
    readonly onSilent: () => void,
  ) {}

  error(): Error {
    return new WorkerLostError(`backend response inactivity timeout: worker ${this.id.toString(16)} sent nothing for ${this.ms / 1000} s`, this.id);
  }
}

function reportLost(health: InstanceHealth, id: bigint, err: unknown): void {
  if (err instanceof WorkerLostError) health.markDown(id, err.message);
}
