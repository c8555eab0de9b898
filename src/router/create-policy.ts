import { KvRouterPolicy, type KvRouterOptions } from './kv-router-policy.js';
import { DeviceAwareWeightedPolicy, LeastLoadedPolicy, PowerOfTwoPolicy } from './load-policies.js';
import type { LoadTracker } from './load-tracker.js';
import { DirectPolicy, RandomPolicy, RoundRobinPolicy, type RouterPolicy } from './push-router.js';

export type PushRouterMode = 'round-robin' | 'random' | 'direct' | 'kv' | 'least-loaded' | 'power-of-two' | 'device-aware-weighted';

export interface RouterPolicyDeps {
  /** The PushRouter's load tracker: the load-based modes need it. */
  load?: LoadTracker;
  /** KV routing settings; `blockSize` is required for kv mode. */
  kv?: Partial<KvRouterOptions> & { blockSize: number };
  cudaToCpuRatio?: number;
}

function needLoad(mode: string, load: LoadTracker | undefined): LoadTracker {
  if (!load) throw new Error(`${mode} routing needs the PushRouter's load tracker`);
  return load;
}

export function createRouterPolicy(mode: PushRouterMode, deps: RouterPolicyDeps = {}): RouterPolicy {
  switch (mode) {
    case 'round-robin':
      return new RoundRobinPolicy();
    case 'random':
      return new RandomPolicy();
    case 'direct':
      return new DirectPolicy();
    case 'least-loaded':
      return new LeastLoadedPolicy(needLoad(mode, deps.load));
    case 'power-of-two':
      return new PowerOfTwoPolicy(needLoad(mode, deps.load));
    case 'device-aware-weighted':
      return new DeviceAwareWeightedPolicy(needLoad(mode, deps.load), deps.cudaToCpuRatio);
    case 'kv':
      if (!deps.kv) throw new Error('kv router mode needs the kv block size');
      return new KvRouterPolicy(deps.kv);
  }
}
