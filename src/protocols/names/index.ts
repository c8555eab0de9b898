// The names of pluggable parts, each listed once: config's choices and the registries' keys derive from them.
export * from './parser-names.js';
export * from './response-store-names.js';
export * from './router-modes.js';
export * from './runtime-part-names.js';
