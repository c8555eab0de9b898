export { HttpService } from './http-service.js';
export { defaultFileStoreDir } from './responses/index.js';
export type { HttpServiceOptions, HttpTls } from './service-options.js';
export { DEFAULT_HTTP_PATHS, type HttpPaths } from '../../protocols/index.js';
export { SseWriter } from './sse/index.js';
export { httpErrorReply, streamErrorJson, reasonPhrase } from './error-envelope.js';
export type { NamedRouteExtension, RouteExtension, RouteExtensionContext } from './route-extension.js';
export { RlAdminServer, type RlAdminOptions } from './rl/index.js';
