// Tells the request's context of each attempt's routing decision and engine call
// (GenerateContext.dispatched), so observers (tracing) see the chosen instance, the predicted
// overlap and the call without the router knowing them. A context without the hook costs nothing.
import { observeStream } from '../observed-stream.js';
import { targetOf, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';

/** Outermost after migration: marks when each attempt's routing began. */
export function routingClock<Req, Out>(): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    if (route.ctx.dispatched) route.routingStartedAt = performance.now();
    return next(route);
  };
}

/** After the policy chose: reports the decision, gives the call its trace context, reports its end. */
export function dispatchEvents<Req, Out>(router: Pick<RouterView<Req, Out>, 'policy' | 'mode'>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const observe = route.ctx.dispatched;
    if (!observe) return next(route);
    const instance = targetOf(route);
    const call = observe({
      instanceId: instance.id,
      routerMode: router.mode,
      overlapBlocks: router.policy.overlapBlocks?.(instance, route.request),
      routingStartedAt: route.routingStartedAt ?? performance.now(),
    });
    if (!call) return next(route);
    let stream: AsyncIterable<Out>;
    try {
      stream = next(call.trace ? { ...route, ctx: { ...route.ctx, trace: call.trace } } : route);
    } catch (err) {
      call.end(err);
      throw err;
    }
    return observeStream(stream, { onEnd: (error) => call.end(error) });
  };
}
