// The busy gate: the candidates are the live instances not over a busy threshold; when that leaves
// none the request is rejected as overloaded (529).
import { allWorkersBusyError, anyThresholdSet, busyReason } from '../busy.js';
import type { Instance, RouteStep } from '../route.js';
import type { RouterView } from '../router-view.js';

type LoadView<Req, Out> = Pick<RouterView<Req, Out>, 'busyThresholds' | 'load'>;

/** Why `inst` is busy under the router's thresholds, or null when it is not. */
export function instanceBusyReason<Req, Out>(router: LoadView<Req, Out>, inst: Instance<Req, Out>): string | null {
  return busyReason(router.busyThresholds, { ...inst.capacity?.(), activePrefillTokens: router.load.prefillTokens(inst.id) });
}

export function busyGate<Req, Out>(
  router: Pick<RouterView<Req, Out>, 'modelName' | 'instances' | 'busyThresholds' | 'load'>,
): RouteStep<Req, Out> {
  return (decision) => {
    if (decision.target) return;
    const t = router.busyThresholds;
    const all = router.instances;
    if (!anyThresholdSet(t)) {
      decision.candidates = all;
      return;
    }
    let reason: string | null = null;
    const free = all.filter((inst) => {
      const why = instanceBusyReason(router, inst);
      reason ??= why;
      return why === null;
    });
    if (free.length === 0) throw allWorkersBusyError(router.modelName, all.length, reason ?? 'busy');
    decision.candidates = free;
  };
}
