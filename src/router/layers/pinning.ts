// Pinning: a request that names its instance goes there, past the busy gate, the queue and the
// policy. An id that no live instance has is a 404; one that is down is a 503.
import { NotFoundError, UnavailableError } from '../../protocols/index.js';
import type { RouteStep } from '../route.js';
import type { RouterView } from '../router-view.js';

function parseInstanceId(raw: string | number): bigint | null {
  try {
    return typeof raw === 'number' ? BigInt(Math.trunc(raw)) : BigInt(raw.trim());
  } catch {
    return null;
  }
}

export function pinning<Req, Out>(router: Pick<RouterView<Req, Out>, 'modelName' | 'instances' | 'requests' | 'health'>): RouteStep<Req, Out> {
  return (decision) => {
    const pinned = router.requests.pinnedInstance(decision.request);
    if (pinned === null) return;
    const id = parseInstanceId(pinned);
    const target = id === null ? undefined : router.instances.find((i) => i.id === id);
    if (!target && id !== null && router.health.isDown(id)) throw new UnavailableError(`Worker instance ${String(pinned)} of model ${router.modelName} is down`);
    if (!target) throw new NotFoundError(`Worker instance ${String(pinned)} not found for model ${router.modelName}`);
    decision.target = target;
  };
}
