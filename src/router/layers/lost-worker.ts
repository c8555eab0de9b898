// Lost workers: the chosen instance's stream is watched for the signs of a lost worker, a
// WorkerLostError (unreachable, connection reset, stream ended before completion) or silence. With
// the process's WorkerLiveness, silence past the stream's bound gets its worker pinged, and an
// unresponsive or stuck worker fails all its streams (health/worker-liveness.ts); without it, only
// silence past the stall timeout (DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS) fails the stream. A silent
// call is aborted and fails with a WorkerLostError. Either way the instance is marked down in the
// shared health record, so no router of this process picks it again until it is back, and the
// error goes on to the layers above (migration may re-send the request).
import { WorkerLostError } from '../../protocols/index.js';
import type { InstanceHealth } from '../health/index.js';
import { observeStream, watchSilence, type SilenceWatch } from '../observed-stream.js';
import { targetOf, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';

type Watched<Req, Out> = Pick<RouterView<Req, Out>, 'health' | 'stallTimeoutMs' | 'liveness' | 'requests'>;

export function lostWorker<Req, Out>(router: Watched<Req, Out>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const id = targetOf(route).id;
    const stallMs = router.stallTimeoutMs;
    const liveness = router.liveness;
    const stall = liveness || stallMs ? linkedAbort(route.ctx.signal) : null;
    const ctx = stall ? { ...route.ctx, signal: stall.abort.signal } : route.ctx;
    let stream: AsyncIterable<Out>;
    try {
      stream = next({ ...route, ctx });
    } catch (err) {
      stall?.unlink();
      reportLost(router.health, id, err);
      throw err;
    }
    if (!stall) return observeStream(stream, { onEnd: (error) => error !== undefined && reportLost(router.health, id, error) });
    const onSilent = (): void => stall.abort.abort();
    const watch: SilenceWatch & { release?(): void } = liveness
      ? liveness.watch(id, router.requests.promptTokens(route.request), stallMs, onSilent)
      : { ms: stallMs, error: () => inactivity(id, stallMs), onSilent };
    const observed = observeStream(stream, {
      onEnd: (error) => {
        stall.unlink();
        watch.release?.();
        if (error !== undefined) reportLost(router.health, id, error);
      },
    });
    return watchSilence(observed, watch);
  };
}

function inactivity(id: bigint, stallMs: number): WorkerLostError {
  return new WorkerLostError(`backend response inactivity timeout: worker ${id.toString(16)} sent nothing for ${stallMs / 1000} s`, id);
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
