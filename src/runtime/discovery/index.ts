export { KeyExistsError, type DiscoveryBackend, type DiscoveryLogger, type Lease, type StoreEvent, type StoreEventHandler } from './backend.js';
export { DISCOVERY_BACKENDS, DISCOVERY_REACH, type DiscoveryBackendName, type DiscoveryBackendOptions, type DiscoveryReach } from './create-backend.js';
export { MemDiscoveryBackend } from './mem-backend.js';
export { FileDiscoveryBackend, encodeFileKey, decodeFileKey } from './file-backend.js';
// The etcd and Kubernetes backends are not re-exported: DISCOVERY_BACKENDS imports them (and
// their heavy client packages) only when chosen; import './etcd-backend.js' or './kube-backend.js' directly.
export { kubeInstanceId, podIdentity, type PodIdentity } from './kube-identity.js';
export { DWM, DWM_API_VERSION, FIELD_MANAGER } from './kube-metadata.js';
export { etcdReason } from './etcd-reason.js';
export { WatchedSet } from './watched-set.js';
export { Backoff } from './backoff.js';
export { watchRecords, type RecordWatchHandlers } from './watch-records.js';
export { namespaceScope, type NamespaceScope, type NamespaceScopeOptions } from './namespace-scope.js';
export {
  INSTANCES_BUCKET,
  MODELS_BUCKET,
  EVENT_CHANNELS_BUCKET,
  endpointPath,
  instanceKey,
  modelKey,
  eventChannelKey,
  encodeEndpointInstance,
  encodeModelRecord,
  encodeEventChannel,
  decodeEndpointInstance,
  decodeModelRecord,
  decodeEventChannel,
  type EndpointId,
  type EndpointInstance,
  type ModelRecord,
  type EventChannelRecord,
  type Transport,
} from './records.js';
