// A request on its way through the routing layers. The layers are undici-style interceptors: each
// wraps the rest of the chain. They pass a route rather than a bare request because several of
// them work on the same per-request decision (the busy gate narrows the instances that the queue
// and the policy then look at), and a layer that fixes the target (pinning) lets the others see it.
import { InternalError, type GenerateContext } from '../protocols/index.js';
import type { StreamingEngine, WorkerInstance } from './worker-instance.js';

/** A worker instance that serves requests of kind `Req` as streams of `Out`. */
export type Instance<Req, Out> = WorkerInstance<StreamingEngine<Req, Out>>;

/** Which instance one request goes to, while it is being decided. */
export interface Decision<Req, Out> {
  readonly request: Req;
  /** The instances the policy may choose from; the busy gate narrows them. */
  candidates: readonly Instance<Req, Out>[];
  /** The chosen instance: the one the request is pinned to, or the policy's pick. */
  target: Instance<Req, Out> | null;
  /** Instances this request already lost (migration): never chosen again for it. */
  excluded?: ReadonlySet<bigint>;
  /** `performance.now()` when this attempt's routing began; set only while dispatches are observed. */
  routingStartedAt?: number;
}

/** A decision with the request's context: what the layers pass down. */
export interface Route<Req, Out> extends Decision<Req, Out> {
  readonly ctx: GenerateContext;
}

/** A synchronous routing step: fixes the target, narrows the candidates, or throws. */
export type RouteStep<Req, Out> = (decision: Decision<Req, Out>) => void;

/** The rest of the chain: from a route to the chosen worker's stream. */
export type Dispatch<Req, Out> = (route: Route<Req, Out>) => AsyncIterable<Out>;

/** Wraps the rest of the chain. */
export type RoutingLayer<Req, Out> = (next: Dispatch<Req, Out>) => Dispatch<Req, Out>;

/** A step as a layer: it runs, then the rest of the chain does. */
export function stepLayer<Req, Out>(step: RouteStep<Req, Out>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    step(route);
    return next(route);
  };
}

/** The layers around `last`, the first of them outermost. */
export function composeLayers<Req, Out>(layers: readonly RoutingLayer<Req, Out>[], last: Dispatch<Req, Out>): Dispatch<Req, Out> {
  return layers.reduceRight((next, layer) => layer(next), last);
}

/** The route's chosen instance; a chain that reaches a dispatch without one is wired wrongly. */
export function targetOf<Req, Out>(decision: Decision<Req, Out>): Instance<Req, Out> {
  if (!decision.target) throw new InternalError('routing reached dispatch without a chosen instance');
  return decision.target;
}

/** The end of every chain: the chosen instance serves the request. */
export function sendToTarget<Req, Out>(route: Route<Req, Out>): AsyncIterable<Out> {
  return targetOf(route).client.generate(route.request, route.ctx);
}
