// The distributed runtime: discovery backends, request planes, event planes and their wire codecs.
export {
  DistributedRuntime,
  Namespace,
  Component,
  Endpoint,
  type RuntimeOptions,
  type RuntimeLogger,
  type RegisterModelOptions,
} from './distributed-runtime.js';
export { engineHandler, RemoteEngineClient, engineOutputOf } from './engine-endpoint.js';
export { fileChecksum, withFileChecksums, verifyFileChecksums } from './card-checksums.js';
export { annotatedData, remoteCall, type RemoteCallLogger } from './remote-stream.js';
export { tensorEngineHandler, RemoteTensorClient } from './tensor-endpoint.js';
export { mediaHandler, RemoteMediaClient, type MediaEngine } from './media-endpoint.js';
export { connectNats, natsConnection, closeNatsConnections, type NatsTls } from './nats-connection.js';
export { PlaneStatus, type PlaneConnection, type PlaneChange, type PlaneLogger } from './plane-status.js';
export { randomInstanceId, instanceIdHex, parseInstanceIdHex, randomUuid } from './ids.js';
export { AsyncQueue, queueStream, startedQueueStream, type OpenedQueue, type QueueClose } from './async-queue/index.js';
export * from './discovery/index.js';
export * from './request-plane/index.js';
export * from './event-plane/index.js';
export * from './codecs/index.js';
export { NatsRouterStateStore, SNAPSHOT_BUCKET, SNAPSHOT_OBJECT, LOCK_STREAM } from './nats-router-state.js';
export type { RouterStateStore, LockRelease } from './router-state-store.js';
export * from './rl/index.js';
