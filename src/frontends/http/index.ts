export { HttpService, DEFAULT_HTTP_PATHS, type HttpServiceOptions, type HttpPaths, type HttpTls } from './http-service.js';
export { SseWriter } from './sse-writer.js';
export { httpErrorReply, streamErrorJson, reasonPhrase } from './error-envelope.js';
export type { NamedRouteExtension, RouteExtension, RouteExtensionContext } from './route-extension.js';
