export { slugify, toCardJson, type CardFile, type ModelDeploymentCard, type ModelInput, type ModelTypeFlag } from '../protocols/index.js';
export * from './card-loader.js';
export * from './model-manager.js';
export { tensorModelCardJson, tensorModelConfigToJson, tensorModelConfigFromCard } from './tensor-card.js';
export * from './hub/index.js';
