// A model with no live instance answers 503 (model not ready) before anything else is decided.
import { modelNotReadyError } from '../../protocols/index.js';
import type { RouteStep } from '../route.js';
import type { RouterView } from '../router-view.js';

export function requireWorkers<Req, Out>(router: Pick<RouterView<Req, Out>, 'modelName' | 'instances'>): RouteStep<Req, Out> {
  return (decision) => {
    if (!decision.target && router.instances.length === 0) throw modelNotReadyError(router.modelName);
  };
}
