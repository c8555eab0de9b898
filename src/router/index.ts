export { Router, type RouterOptions } from './router.js';
export { PushRouter, type PushRouterOptions } from './push-router.js';
export {
  Disaggregation,
  prefillRequest,
  decodeRequest,
  localPrefillRequest,
  type PrefillPool,
  type DecodeHop,
  type DecisionLogger,
  type ConditionalDisagg,
  type PrefillDecisionCount,
} from './disaggregation.js';
export {
  CONDITIONAL_DISAGG_POLICIES,
  DEFAULT_EFF_ISL_RATIO_THRESHOLD,
  DEFAULT_EFF_ISL_THRESHOLD,
  LOAD_AWARE_POLICIES,
  decidePrefill,
  type ConditionalDisaggPolicy,
  type ConditionalDisaggSettings,
  type PrefillDecision,
  type PrefillFacts,
  type PrefillReason,
  type PrefillVerdict,
} from './conditional-disagg.js';
export { LLM_RESUMABLE, type ResumableRequests } from './resumable-requests.js';
export { TensorRouter } from './tensor-router.js';
export type { WorkerInstance, WorkerCapacity, StreamingEngine, AnyInstance, DpRanks } from './worker-instance.js';
export { LLM_REQUESTS, TENSOR_REQUESTS, EMBEDDING_REQUESTS, UNHINTED_REQUESTS, type RequestView } from './request-views.js';
export { routingChain, type RoutingChain } from './routing-chain.js';
export {
  composeLayers,
  stepLayer,
  sendToTarget,
  type Decision,
  type Dispatch,
  type Instance,
  type Route,
  type RouteStep,
  type RoutingLayer,
} from './route.js';
export type { RouterView } from './router-view.js';
export {
  busyGate,
  loadTracking,
  lostWorker,
  migration,
  pinning,
  policySelect,
  requireWorkers,
  routerQueue,
  skipExcluded,
  NO_MIGRATION,
  type Migration,
  type MigrationLogger,
  type MigrationSettings,
} from './layers/index.js';
export { SessionAffinity, MAX_SESSION_ID_BYTES, MAX_SESSIONS, type SessionAffinityMode, type SessionAffinityOptions } from './session-affinity.js';
export {
  InstanceHealth,
  WorkerLiveness,
  DEFAULT_SILENCE_BOUNDS,
  type InstanceHealthOptions,
  type InstanceProbe,
  type HealthChange,
  type SilenceBounds,
} from './health/index.js';
export {
  buildRouterPolicy,
  createRouterPolicy,
  routerPolicyNeeds,
  RoundRobinPolicy,
  RandomPolicy,
  DirectPolicy,
  LeastLoadedPolicy,
  PowerOfTwoPolicy,
  DeviceAwareWeightedPolicy,
  DEFAULT_CUDA_TO_CPU_RATIO,
  KvRouterPolicy,
  DEFAULT_KV_ROUTER_OPTIONS,
  type RouterPolicy,
  type WorkerPreview,
  type KvEventSink,
  type PolicyProvides,
  type ReplicaSharing,
  type BuiltPolicy,
  type PolicyFor,
  type PolicyNeed,
  type KvSettings,
  type RouterPolicyDeps,
  type KvRouterOptions,
  type KvDecision,
} from './policies/index.js';
export { LoadTracker } from './load-tracker.js';
export { observeStream, watchSilence, type SilenceWatch, type StreamObserver } from './observed-stream.js';
export { WorkerLoads, type WorkerTotals } from './worker-loads.js';
export { busyReason, anyThresholdSet, NO_BUSY_THRESHOLDS, type BusyThresholds, type WorkerLoadSnapshot } from './busy.js';
export {
  ReplicaSync,
  ACTIVE_SEQUENCES_TOPIC,
  encodeSequenceEvent,
  decodeSequenceEvent,
  startSessionAffinitySync,
  decodeSessionAffinityEvent,
  SESSION_AFFINITY_TOPIC,
  RouterSnapshots,
  SNAPSHOT_LOCK,
  CLEANUP_LOCK,
  ServedIndexer,
  INDEXER_QUERY_ENDPOINT,
  INDEXER_RECORD_ENDPOINT,
  readTieredScores,
  type EventBus,
  type ActiveSequenceEvent,
  type AddRequestData,
  type SessionAffinityEvent,
  type RouterSnapshotsOptions,
  type SnapshotLogger,
} from './shared-state/index.js';
export type { RouterStateStore, LockRelease } from '../runtime/index.js';
export { PUBLIC_TRACKING, TRACKING_KEY_BYTES, TrackingKey, type TrackingHash, type TrackingScope } from './kv/tracking/index.js';
export { DEFAULT_MAX_SESSIONS, type LineageAnswer, type LogicalNode, type NodeId, type SessionFrontier, type SessionPrefixView } from './kv/session-prefix/index.js';
export { decodeVllmEventBatch, type LowerTier, type PrefillPredictor, type RemoteMatches, type TieredMatches, type VllmEventBatch } from './kv/index.js';
export {
  BUILT_IN_SELECTION,
  WORKER_SELECTION_TYPES,
  isWorkerSelectionType,
  selectionParameters,
  singleClassProfile,
  type ClassMatrix,
  type PolicyClassSpec,
  type PolicyProfile,
  type SelectionParameter,
  type WorkerSelectionChoice,
  type WorkerSelectionType,
} from './kv/index.js';
