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
export { LeastLoadedPolicy, PowerOfTwoPolicy, DeviceAwareWeightedPolicy, DEFAULT_CUDA_TO_CPU_RATIO } from './load-policies.js';
export { LoadTracker, observeStream, type StreamObserver } from './load-tracker.js';
export { WorkerLoads, type WorkerTotals } from './worker-loads.js';
export { busyReason, anyThresholdSet, NO_BUSY_THRESHOLDS, type BusyThresholds, type WorkerLoadSnapshot } from './busy.js';
export type { QueuePolicy } from './kv/index.js';
export {
  ReplicaSync,
  ACTIVE_SEQUENCES_TOPIC,
  encodeSequenceEvent,
  decodeSequenceEvent,
  type EventBus,
  type ActiveSequenceEvent,
  type AddRequestData,
} from './replica-sync.js';
export {
  RouterSnapshots,
  SNAPSHOT_LOCK,
  CLEANUP_LOCK,
  type RouterStateStore,
  type RouterSnapshotsOptions,
  type SnapshotLogger,
  type LockRelease,
} from './router-snapshots.js';
export { NatsRouterStateStore, SNAPSHOT_BUCKET, SNAPSHOT_OBJECT, LOCK_STREAM } from './nats-router-state.js';
