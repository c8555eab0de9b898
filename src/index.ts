// The library API: start the gateway from code, in the same process as other components.
export { startServe, type RunningService } from './launch/index.js';
export { parseCommandLine, type Config } from './config/index.js';
export { MockerEngine } from './engines/mocker/index.js';
export { createLogger } from './observability/index.js';
export * from './protocols/index.js';
