export * from './engine.js';
export * from './errors.js';
export * from './kv-events.js';
export * from './load-metrics.js';
export * from './openai.js';
export * from './tensor.js';
export * from './kv-hashing.js';
export * from './model-card.js';
