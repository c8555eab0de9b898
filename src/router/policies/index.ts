export type { RouterPolicy, WorkerPreview } from './policy.js';
export type { KvEventSink, PolicyProvides, ReplicaSharing } from './capabilities.js';
export {
  buildRouterPolicy,
  createRouterPolicy,
  routerPolicyNeeds,
  type BuiltPolicy,
  type PolicyFor,
  type PolicyNeed,
  type KvSettings,
  type RouterPolicyDeps,
} from './registry.js';
export { RoundRobinPolicy, RandomPolicy, DirectPolicy } from './basic-policies.js';
export { LeastLoadedPolicy, PowerOfTwoPolicy, DeviceAwareWeightedPolicy, DEFAULT_CUDA_TO_CPU_RATIO } from './load-policies.js';
export { KvRouterPolicy, DEFAULT_KV_ROUTER_OPTIONS, type KvRouterOptions, type KvDecision } from './kv-policy.js';
