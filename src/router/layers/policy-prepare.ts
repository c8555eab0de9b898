// A policy whose selection needs asynchronous input (a remote indexer's overlaps) fetches it here,
// before the router queue and the selection read it; a request already pinned skips it. The layer
// is in the chain only for policies that have a prepare step.
import type { RouterPolicy } from '../policies/index.js';
import type { Dispatch, Route, RoutingLayer } from '../route.js';

type Prepare<Req> = NonNullable<RouterPolicy<Req, unknown>['prepare']>;

export function policyPrepare<Req, Out>(prepare: Prepare<Req>): RoutingLayer<Req, Out> {
  return (next) => (route) => (route.target ? next(route) : afterPrepare(prepare, next, route));
}

async function* afterPrepare<Req, Out>(prepare: Prepare<Req>, next: Dispatch<Req, Out>, route: Route<Req, Out>): AsyncGenerator<Out> {
  await prepare(route.request, route.ctx.signal);
  yield* next(route);
}
