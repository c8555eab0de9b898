export {
  PushRouter,
  RoundRobinPolicy,
  RandomPolicy,
  DirectPolicy,
  type RouterPolicy,
  type WorkerInstance,
  type WorkerCapacity,
} from './push-router.js';
export { createRouterPolicy, type PushRouterMode, type RouterPolicyDeps } from './create-policy.js';
export { KvRouterPolicy, DEFAULT_KV_ROUTER_OPTIONS, type KvRouterOptions, type KvDecision } from './kv-router-policy.js';
export { LeastLoadedPolicy, DeviceAwareWeightedPolicy, DEFAULT_CUDA_TO_CPU_RATIO } from './load-policies.js';
export { LoadTracker, observeStream, type StreamObserver } from './load-tracker.js';
export { busyReason, anyThresholdSet, NO_BUSY_THRESHOLDS, type BusyThresholds, type WorkerLoadSnapshot } from './busy.js';
export type { QueuePolicy } from './kv/index.js';
