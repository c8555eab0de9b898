// Session affinity in the routing chain (router/session-affinity.ts has the rules): a step after
// pinning sends a bound session to its worker, and a layer after the policy binds the session to
// the worker its request was dispatched to and keeps the binding alive while the stream runs.
import { ValidationError } from '../../protocols/index.js';
import { observeStream } from '../observed-stream.js';
import { SessionAffinity } from '../session-affinity.js';
import { targetOf, type RouteStep, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';
import { instanceBusyReason } from './busy-gate.js';

type AffinityView<Req, Out> = Pick<RouterView<Req, Out>, 'affinity' | 'requests' | 'instances' | 'busyThresholds' | 'load'>;

export function sessionTarget<Req, Out>(router: AffinityView<Req, Out>): RouteStep<Req, Out> {
  return (decision) => {
    const affinity = router.affinity;
    const raw = affinity ? router.requests.sessionId(decision.request) : null;
    if (!affinity || raw === null) return;
    const session = SessionAffinity.validId(raw);
    const bound = affinity.boundWorker(session);
    if (bound === null) {
      affinity.assertRoom(session);
      return;
    }
    if (decision.target) {
      if (decision.target.id !== bound) throw new ValidationError(`session ${session} is bound to worker ${bound}, not ${decision.target.id}`);
      return;
    }
    const worker = router.instances.find((i) => i.id === bound);
    if (!worker || decision.excluded?.has(bound)) {
      // Gone: the session starts afresh on whichever worker is chosen now.
      affinity.unbind(session);
      return;
    }
    if (affinity.mode === 'soft' && instanceBusyReason(router, worker) !== null) return;
    decision.target = worker;
  };
}

export function sessionBinding<Req, Out>(router: Pick<RouterView<Req, Out>, 'affinity' | 'requests'>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const affinity = router.affinity;
    const session = affinity ? router.requests.sessionId(route.request) : null;
    if (!affinity || session === null) return next(route);
    const worker = targetOf(route).id;
    const stream = next(route);
    const release = affinity.dispatched(session, worker);
    return observeStream(stream, { onEnd: release });
  };
}
