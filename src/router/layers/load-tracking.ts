// Load tracking: from dispatch until its stream ends, a request counts on its instance in the
// router's LoadTracker (in flight, and prefill until its first output), and the policy observes it
// when it tracks load of its own (the kv policy's active sequences). Counting starts when the
// request is dispatched, synchronously, so the next decision already sees it.
import type { LoadPhases } from '../load-tracker.js';
import { observeStream, type StreamObserver } from '../observed-stream.js';
import { targetOf, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';

export function loadTracking<Req, Out>(router: Pick<RouterView<Req, Out>, 'load' | 'policy' | 'requests'>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const instance = targetOf(route);
    const phases = router.load.start(instance.id, router.requests.promptTokens(route.request));
    const tracked = new TrackedLoad<Out>(phases, router.policy.track?.(instance, route.request, route.ctx.requestId) ?? null);
    let stream: AsyncIterable<Out>;
    try {
      stream = next(route);
    } catch (err) {
      tracked.onEnd();
      throw err;
    }
    return observeStream(stream, tracked);
  };
}

/** The load needs only the first output; the policy's observer, if it has one, hears each. */
class TrackedLoad<Out> implements StreamObserver<Out> {
  readonly onOutput?: (out: Out) => void;

  constructor(
    private readonly phases: LoadPhases,
    private readonly observer: StreamObserver<Out> | null,
  ) {
    const each = observer?.onOutput;
    if (each) this.onOutput = each.bind(observer);
  }

  onFirstOutput(): void {
    this.phases.firstOutput();
  }

  onEnd(): void {
    this.phases.end();
    this.observer?.onEnd();
  }
}
