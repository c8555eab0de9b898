export { bridgeTokenizer } from './bridge.js';
export { upstreamsFromFlags, type UpstreamSpec } from './bridge-upstreams.js';
export { ConfiguredBridges } from './configured-bridges.js';
export { parseUpstreamConfig } from './upstream-config.js';
export { bridgeModelFromConfig, runBridgeWorker, startOpenAiWorker, type RunningBridgeWorker } from './worker-openai.js';
