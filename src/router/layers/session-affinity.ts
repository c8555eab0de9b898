// Session affinity in the routing chain (router/session-affinity.ts has the rules): a step after
// pinning sends a bound session to its worker, and a layer after the policy binds the session to
// the worker its request was dispatched to and keeps the binding alive while the stream runs.
import { ValidationError } from '../../protocols/index.js';
import { observeStream } from '../observed-stream.js';
import { SessionAffinity } from '../session-affinity.js';
import { targetOf, type Route, type RouteStep, type RoutingLayer } from '../route.js';
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

export function sessionBinding<Req, Out>(router: Pick<RouterView<Req, Out>, 'affinity' | 'requests' | 'instances'>): RoutingLayer<Req, Out> {
  return (next) => (route) => {
    const affinity = router.affinity;
    const session = affinity ? router.requests.sessionId(route.request) : null;
    if (!affinity || session === null) return next(route);
    if (affinity.mode === 'hard') joinFirstBinding(router, session, route);
    const worker = targetOf(route).id;
    const stream = next(route);
    const release = affinity.dispatched(session, worker);
    return observeStream(stream, { onEnd: release });
  };
}

/**
 * Concurrent first requests of a session end on one worker. A request decided while the session
 * was unbound may find it bound once it reaches dispatch (another first request dispatched while
 * this one waited in an asynchronous step, a remote indexer's prepare): the first binding wins, as
 * if this request had waited for it, unless the client named a worker or the bound one cannot
 * take the request.
 */
function joinFirstBinding<Req, Out>(router: Pick<RouterView<Req, Out>, 'affinity' | 'requests' | 'instances'>, session: string, route: Route<Req, Out>): void {
  const bound = router.affinity!.boundWorker(session);
  if (bound === null || bound === route.target?.id || router.requests.pinnedInstance(route.request) !== null || route.excluded?.has(bound)) return;
  const worker = router.instances.find((i) => i.id === bound);
  if (worker) route.target = worker;
}
