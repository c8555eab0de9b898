export { slugify, toCardJson, type CardFile, type ModelDeploymentCard, type ModelInput, type ModelTypeFlag } from '../protocols/index.js';
export * from './card-loader.js';
export * from './model-manager.js';
export { tensorModelCardJson, tensorModelConfigToJson, tensorModelConfigFromCard } from './tensor-card.js';
export * from './hub/index.js';
export { ModelWatcher, type ModelWatcherDeps, type ModelWatcherObserver, type ModelWatcherSettings } from './model-watcher.js';
export { ModelArrival } from './model-arrival.js';
export { clusterStats } from './cluster-stats.js';
export {
  assembleModel,
  cardFromCardJson,
  sharedTokenTable,
  type AssembledModel,
  type AssemblyOptions,
  type ModelSettings,
  type RouterSettings,
  type TensorModelSink,
  type TokenizerFactory,
} from './assembly/index.js';
export { ServedIndexers, type RouterStateFactory, type ServeEndpoint } from './wiring/index.js';
