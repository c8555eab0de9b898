// The policy picks among the candidates, unless the request is already bound to an instance.
import type { RouterPolicy } from '../policies/index.js';
import type { RouteStep } from '../route.js';

export function policySelect<Req, Out>(policy: RouterPolicy<Req, Out>): RouteStep<Req, Out> {
  return (decision) => {
    decision.target ??= policy.select(decision.candidates, decision.request);
  };
}
