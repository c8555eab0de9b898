export * from './card.js';
export * from './card-loader.js';
export * from './model-manager.js';
