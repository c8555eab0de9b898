// The library API: start the gateway from code, in the same process as other components.
export { startServe, type RunningService, type ServeOptions } from './launch/index.js';
export { parseCommandLine, type Config } from './config/index.js';
export { MockerEngine } from './engines/mocker/index.js';
export { createLogger } from './observability/index.js';
export * from './protocols/index.js';
export { encodeModelConfig } from './kserve/index.js';
export { ModelManager } from './models/index.js';
export type { RouteExtension, RouteExtensionContext } from './frontends/http/index.js';
export { FrontendMetrics, meteredRequestScope, MetricsRegistry } from './observability/index.js';
// Each start function is named for what it starts: the whole gateway in one process (startServe),
// the frontend that finds workers through discovery (startFrontend), the KServe gRPC frontend over
// models given in code (startKserveFrontend), simulated workers (startMocker).
export {
  startFrontend,
  type FrontendService,
  startKserveFrontend,
  type KserveFrontendOptions,
  type RunningKserveFrontend,
  startMocker,
  type RunningMocker,
  workerRuntimeFromEnv,
} from './launch/index.js';
export {
  DistributedRuntime,
  engineHandler,
  RemoteEngineClient,
  tensorEngineHandler,
  kvEventPublisher,
  kvEventSubject,
  subscribeKvEvents,
  loadMetricsPublisher,
  loadMetricsSubject,
  subscribeLoadMetrics,
  type RuntimeOptions,
  type RegisterModelOptions,
  type EndpointHandler,
  type EventPlane,
} from './runtime/index.js';
export { tensorModelCardJson } from './models/index.js';
