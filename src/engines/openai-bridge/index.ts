export { OpenAiBridgeEngine, type BridgeEngineOptions } from './bridge-engine.js';
export type { BridgeTokenizer, UpstreamInput } from './piece-outputs.js';
export { UpstreamHealth, type UpstreamHealthOptions } from './upstream-health.js';
