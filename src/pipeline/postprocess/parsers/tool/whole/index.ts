// The tool-call formats whose calls are released whole, each once its markup closes.
export { gemma4ToolCallParser } from './gemma4-calls.js';
export { kimiK3ToolCallParser } from './kimi-k3-calls.js';
export { minimaxM3ToolCallParser } from './minimax-m3-calls.js';
export { museGlimmerToolCallParser } from './muse-glimmer-calls.js';
