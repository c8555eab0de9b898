// The router queue: a policy with an admission queue may hold a request back while every candidate
// is loaded. The candidates the busy gate chose are used for that check and, when the request goes
// on at once, for the policy's pick. A request that waited is decided again afterwards (`regate`):
// by then instances may have left and load has moved.
import type { RouterPolicy } from '../policies/index.js';
import type { Dispatch, Route, RouteStep, RoutingLayer } from '../route.js';

export function routerQueue<Req, Out>(policy: RouterPolicy<Req, Out>, regate: readonly RouteStep<Req, Out>[]): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const wait = route.target ? null : (policy.admission?.(route.candidates, route.request, route.ctx.signal) ?? null);
    return wait ? afterWait(wait, regate, next, route) : next(route);
  };
}

async function* afterWait<Req, Out>(
  wait: Promise<void>,
  regate: readonly RouteStep<Req, Out>[],
  next: Dispatch<Req, Out>,
  route: Route<Req, Out>,
): AsyncGenerator<Out> {
  await wait;
  for (const step of regate) step(route);
  yield* next(route);
}
