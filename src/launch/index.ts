export { startServe, type RunningService } from './serve.js';
export { buildServedModel, loadConfiguredCard, parseEndpoint, type EndpointId } from './served-model.js';
export { startFrontend, type FrontendService } from './frontend.js';
export { startMocker, type RunningMocker } from './mocker.js';
export { ModelWatcher, type ModelWatcherDeps, type ModelWatcherObserver } from './model-watcher.js';
export { cardFromCardJson } from './remote-card.js';
export { runtimeOptionsFromConfig, workerRuntimeFromEnv } from './runtime-options.js';
export { TensorRouter } from './tensor-router.js';
export { type TensorModelSink } from './model-watcher.js';
