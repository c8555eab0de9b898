// Lost workers: the chosen instance's stream is watched for the signs of a lost worker, a
// WorkerLostError (unreachable, connection reset, stream ended before completion) or silence past
// the stall timeout (DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS: the call is then aborted and fails with
// a WorkerLostError). Either way the instance is marked down in the shared health record, so no
// router of this process picks it again until it is back, and the error goes on to the layers
// above (migration may re-send the request).
import { WorkerLostError } from '../../protocols/index.js';
import type { InstanceHealth } from '../instance-health.js';
import { observeStream, watchSilence } from '../observed-stream.js';
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
    const observed = observeStream(stream, {
      onEnd: (error) => {
        stall?.unlink();
        if (error !== undefined) reportLost(router.health, id, error);
      },
    });
    if (!stall || !stallMs) return observed;
    const secs = stallMs / 1000;
    return watchSilence(observed, {
      ms: stallMs,
      error: () => new WorkerLostError(`backend response inactivity timeout: worker ${id.toString(16)} sent nothing for ${secs} s`, id),
      onSilent: () => stall.abort.abort(),
    });
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
