export { startServe, type RunningService } from './serve.js';
export { buildServedModel, loadConfiguredCard, parseEndpoint, type EndpointId } from './served-model.js';
