export { HttpService, type HttpServiceOptions, type HttpTls } from './http-service.js';
export { DEFAULT_HTTP_PATHS, type HttpPaths } from '../../protocols/index.js';
export { SseWriter } from './sse/sse-writer.js';
export { httpErrorReply, streamErrorJson, reasonPhrase } from './error-envelope.js';
export type { NamedRouteExtension, RouteExtension, RouteExtensionContext } from './route-extension.js';
