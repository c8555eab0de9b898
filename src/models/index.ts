export * from './card.js';
export * from './card-loader.js';
export * from './model-manager.js';
export { tensorModelCardJson, tensorModelConfigToJson, tensorModelConfigFromCard } from './tensor-card.js';
