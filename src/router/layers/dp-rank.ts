// The dp rank the policy chose goes with the request to the worker (`routing.dp_rank`, upstream's
// kv dispatch), on a copy: the caller's request, which migration may re-send, keeps no rank it did
// not ask for.
import { targetOf, type RoutingLayer } from '../route.js';
import type { RouterView } from '../router-view.js';

export function dpRank<Req, Out>(router: Pick<RouterView<Req, Out>, 'policy' | 'requests'>): RoutingLayer<Req, Out> {
  const chosen = router.policy.dpRankOf?.bind(router.policy);
  const stamp = router.requests.withDpRank;
  if (!chosen || !stamp) return (next) => next;
  return (next) => (route) => {
    const rank = chosen(targetOf(route), route.request);
    return next(rank === undefined ? route : { ...route, request: stamp(route.request, rank) });
  };
}
