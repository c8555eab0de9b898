export type { RouterPolicy, KvEventSink } from './policy.js';
export { createRouterPolicy, routerPolicyNeeds, type PolicyFor, type PolicyNeed, type KvSettings, type RouterPolicyDeps } from './registry.js';
export { RoundRobinPolicy, RandomPolicy, DirectPolicy } from './basic-policies.js';
export { LeastLoadedPolicy, PowerOfTwoPolicy, DeviceAwareWeightedPolicy, DEFAULT_CUDA_TO_CPU_RATIO } from './load-policies.js';
export { KvRouterPolicy, DEFAULT_KV_ROUTER_OPTIONS, type KvRouterOptions, type KvDecision, type LowerTier, type RemoteMatches, type TieredMatches } from './kv-policy.js';
