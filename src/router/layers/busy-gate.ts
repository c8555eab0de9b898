// The busy gate: the candidates are the live instances not over a busy threshold; when that leaves
// none the request is rejected as overloaded (529).
import { allWorkersBusyError, anyThresholdSet, busyReason } from '../busy.js';
import type { RouteStep } from '../route.js';
import type { RouterView } from '../router-view.js';

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
      const why = busyReason(t, { ...inst.capacity?.(), activePrefillTokens: router.load.prefillTokens(inst.id) });
      reason ??= why;
      return why === null;
    });
    if (free.length === 0) throw allWorkersBusyError(router.modelName, all.length, reason ?? 'busy');
    decision.candidates = free;
  };
}
