export {
  ReplicaSync,
  ACTIVE_SEQUENCES_TOPIC,
  encodeSequenceEvent,
  decodeSequenceEvent,
  type EventBus,
  type ActiveSequenceEvent,
  type AddRequestData,
} from './replica-sync.js';
export { startSessionAffinitySync, decodeSessionAffinityEvent, SESSION_AFFINITY_TOPIC, type SessionAffinityEvent } from './session-affinity-sync.js';
export { RouterSnapshots, SNAPSHOT_LOCK, CLEANUP_LOCK, type RouterSnapshotsOptions, type SnapshotLogger } from './router-snapshots.js';
export { ServedIndexer, INDEXER_QUERY_ENDPOINT, INDEXER_RECORD_ENDPOINT, readTieredScores } from './served-indexer.js';
