// The frontend command: the HTTP service (its options and route paths from the flags, route
// extensions), the KServe gRPC frontend beside it, the services one frontend process shares, and the
// interactive chat.
export { runFrontend, startFrontend, type FrontendService, type RunFrontendOptions, type TakenConnections } from './frontend.js';
export type { FrontendServices } from './frontend-services.js';
export { startKserveFrontend, type KserveFrontendOptions, type RunningKserveFrontend } from './kserve-frontend.js';
export { kserveLayout } from './kserve.js';
export { requestLimits } from './http-options.js';
