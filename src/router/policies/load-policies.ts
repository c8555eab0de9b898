// Load-based router modes (reference/router.md §7): least-loaded, power-of-two and
// device-aware-weighted, all over the router's own count of in-flight requests per instance.
import type { LoadTracker } from '../load-tracker.js';
import type { AnyInstance } from '../worker-instance.js';
import type { RouterPolicy } from './policy.js';

function leastLoaded<I extends AnyInstance>(instances: readonly I[], load: LoadTracker): I {
  let best = instances[0]!;
  let bestLoad = load.inflight(best.id);
  let ties = 1;
  for (let i = 1; i < instances.length; i++) {
    const inst = instances[i]!;
    const l = load.inflight(inst.id);
    if (l < bestLoad) {
      best = inst;
      bestLoad = l;
      ties = 1;
    } else if (l === bestLoad && Math.random() * ++ties < 1) {
      best = inst;
    }
  }
  return best;
}

/** The instance with the fewest in-flight requests; ties are broken at random. */
export class LeastLoadedPolicy implements RouterPolicy<unknown, unknown> {
  constructor(private readonly load: LoadTracker) {}

  select<I extends AnyInstance>(instances: readonly I[]): I {
    return leastLoaded(instances, this.load);
  }
}

/** Samples two distinct instances at random and takes the one with fewer requests in flight. */
export class PowerOfTwoPolicy implements RouterPolicy<unknown, unknown> {
  constructor(
    private readonly load: LoadTracker,
    private readonly random: () => number = Math.random,
  ) {}

  select<I extends AnyInstance>(instances: readonly I[]): I {
    const n = instances.length;
    if (n === 1) return instances[0]!;
    const i = Math.floor(this.random() * n);
    const j = (i + 1 + Math.floor(this.random() * (n - 1))) % n;
    const a = instances[i]!;
    const b = instances[j]!;
    return this.load.inflight(b.id) < this.load.inflight(a.id) ? b : a;
  }
}

/** Upstream's DYN_ENCODER_CUDA_TO_CPU_RATIO default: one GPU instance counts as 8 CPU ones. */
export const DEFAULT_CUDA_TO_CPU_RATIO = 8;

/**
 * Splits instances into CPU and accelerator groups, picks the group with the lower in-flight load
 * per unit of capacity (an accelerator counts `cudaToCpuRatio` times), then least-loaded within it.
 */
export class DeviceAwareWeightedPolicy implements RouterPolicy<unknown, unknown> {
  constructor(
    private readonly load: LoadTracker,
    private readonly cudaToCpuRatio = DEFAULT_CUDA_TO_CPU_RATIO,
  ) {}

  select<I extends AnyInstance>(instances: readonly I[]): I {
    const cpu: I[] = [];
    const accel: I[] = [];
    for (const inst of instances) (inst.deviceType === 'cpu' ? cpu : accel).push(inst);
    if (cpu.length === 0 || accel.length === 0) return leastLoaded(instances, this.load);
    const normalized = (group: I[], weight: number) =>
      group.reduce((sum, inst) => sum + this.load.inflight(inst.id), 0) / (group.length * weight);
    return leastLoaded(normalized(cpu, 1) <= normalized(accel, this.cudaToCpuRatio) ? cpu : accel, this.load);
  }
}
