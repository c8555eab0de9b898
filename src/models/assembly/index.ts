export { assembleModel, type AssembledModel, type AssemblyOptions, type ModelSettings, type TokenizerFactory } from './served-model.js';
export {
  buildModelRouter,
  type KvRouterSettings,
  type LostWorkerOptions,
  type ModelRouter,
  type RouterDeps,
  type RouterSettings,
  type RouterWorkers,
} from './model-router.js';
export { assembleTensorModel, isTensorCard, type TensorModelSink } from './tensor-model.js';
export { cardDpRanks, cardFromCardJson, cardParsers, cardPublishesKvEvents, cardStructuralTag, cardStructuralTagOptions, cardWorkerTotals, servedCard } from './remote-card.js';
export { prepareTokenTables, sharedTokenTable } from './token-tables.js';
export { cardRouterSettings, declaredRouterConfig } from './card-router-config.js';
