export { OpenAiBridgeEngine, type BridgeEngineOptions, type BridgeTokenizer, type UpstreamInput } from './bridge-engine.js';
export { UpstreamHealth, type UpstreamHealthOptions } from './upstream-health.js';
