// Load tracking: from dispatch until its stream ends, a request counts on its instance in the
// router's LoadTracker (in flight, and prefill until its first output), and the policy observes it
// when it tracks load of its own (the kv policy's active sequences). Counting starts when the
// request is dispatched, synchronously, so the next decision already sees it.
import { observeStream, type StreamObserver } from '../observed-stream.js';
import { targetOf, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';

export function loadTracking<Req, Out>(router: Pick<RouterView<Req, Out>, 'load' | 'policy' | 'requests'>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const instance = targetOf(route);
    const phases = router.load.start(instance.id, router.requests.promptTokens(route.request));
    const observer = router.policy.track?.(instance, route.request, route.ctx.requestId) ?? null;
    const end = (): void => {
      phases.end();
      observer?.onEnd();
    };
    let stream: AsyncIterable<Out>;
    try {
      stream = next(route);
    } catch (err) {
      end();
      throw err;
    }
    // The load needs only the first output; the policy's observer, if it has one, hears each.
    const tracked: StreamObserver<Out> = { onFirstOutput: () => phases.firstOutput(), onEnd: end };
    const each = observer?.onOutput?.bind(observer);
    if (each) tracked.onOutput = each;
    return observeStream(stream, tracked);
  };
}
