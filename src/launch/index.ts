export { startServe, type RunningService } from './serve.js';
export { buildServedModel, loadConfiguredCard, parseEndpoint, type EndpointId } from './served-model.js';
export { startFrontend, type FrontendService } from './frontend.js';
export { startKserveFrontend, type KserveFrontendOptions, type RunningKserveFrontend } from './kserve-frontend.js';
export { startMocker, type RunningMocker } from './mocker.js';
export { ModelWatcher, type ModelWatcherDeps, type ModelWatcherObserver } from './model-watcher.js';
export { cardFromCardJson } from './remote-card.js';
export { runtimeOptionsFromConfig, workerRuntimeFromEnv } from './runtime-options.js';
export { type TensorModelSink } from './model-watcher.js';
