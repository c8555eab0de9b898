// A worker's `rl` endpoint (--enable-rl): pause, resume, weight transports and weight updates over
// the engines it serves, answered on the request plane.
export { RlWorker, INITIAL_WEIGHT_VERSION, type RlEngineControl, type RlWorkerIdentity } from './rl-worker.js';
export { rlEndpointHandler } from './rl-handler.js';
