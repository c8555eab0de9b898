// The routing layers in order: the one place that says what wraps what. Migration goes first,
// around all of them, so a re-sent request is decided afresh by every other layer; the lost-worker
// layer is last, next to the instance's stream, so every loss marks the instance down first.
import {
  busyGate,
  dispatchEvents,
  dpRank,
  loadTracking,
  lostWorker,
  migration,
  pinning,
  policyPrepare,
  policySelect,
  requireWorkers,
  routerQueue,
  routingClock,
  sessionBinding,
  sessionTarget,
  skipExcluded,
} from './layers/index.js';
import { stepLayer, type RouteStep, type RoutingLayer } from './route.js';
import type { RouterPolicy } from './policies/index.js';
import type { RouterView } from './router-view.js';

export interface RoutingChain<Req, Out> {
  /** Every layer, outermost first; the chosen instance's client ends the chain. */
  readonly layers: readonly RoutingLayer<Req, Out>[];
  /** The steps that choose an instance, in the same order, without queueing or dispatch. */
  readonly choose: readonly RouteStep<Req, Out>[];
  /** The steps before the policy's pick: pinning, session target, the gates. */
  readonly gates: readonly RouteStep<Req, Out>[];
}

export function routingChain<Req, Out>(router: RouterView<Req, Out>): RoutingChain<Req, Out> {
  // A request pinned to an instance passes the gates untouched: each leaves a chosen target alone.
  // A session bound to a worker is pinned to it (or, soft, preferred) right after explicit pinning.
  const gates: RouteStep<Req, Out>[] = [pinning(router), sessionTarget(router), requireWorkers(router), busyGate(router), skipExcluded()];
  const select = policySelect(router.policy);
  return {
    layers: [
      migration(router),
      routingClock(),
      ...gates.map((gate) => stepLayer(gate)),
      ...prepareLayers(router.policy),
      routerQueue(router.policy, gates),
      stepLayer(select),
      sessionBinding(router),
      dispatchEvents(router),
      loadTracking(router),
      dpRank(router),
      lostWorker(router),
    ],
    choose: [...gates, select],
    gates,
  };
}

/** The policy's asynchronous prepare step, as a layer, when it has one (none otherwise: no cost). */
function prepareLayers<Req, Out>(policy: RouterPolicy<Req, Out>): RoutingLayer<Req, Out>[] {
  return policy.prepare ? [policyPrepare(policy.prepare)] : [];
}
