// The HTTP routes and where each lives unless told otherwise, written once. They live here, with the
// wire types, because two layers need them and neither may import the other: the config table makes
// one path option per row (its flag, variable, default and help) without loading the HTTP frontend,
// and the frontend registers one route per name at the path the option gives (the compiler asks for
// a route when a row is added).

export interface HttpRoutePlace {
  /** Where the route is served by default. */
  readonly path: `/${string}`;
  /**
   * The name its path option goes by: `Cmp` is the option `httpSvcCmpPath`, read from
   * DYN_HTTP_SVC_CMP_PATH. Upstream's short names are kept where upstream has the variable.
   */
  readonly setting: string;
  /** What it serves, as the option's help says it ("Path of the <what> endpoint"). */
  readonly what: string;
  /** Upstream has the variable too: it is also read under upstream's `_ENV` spelling. */
  readonly upstream: boolean;
}

/** Every route with a path of its own, in the order help and docs list their options. */
export const HTTP_ROUTES = {
  chat: { path: '/v1/chat/completions', setting: 'Chat', what: 'chat completions', upstream: true },
  completions: { path: '/v1/completions', setting: 'Cmp', what: 'completions', upstream: true },
  embeddings: { path: '/v1/embeddings', setting: 'Emb', what: 'embeddings', upstream: true },
  images: { path: '/v1/images/generations', setting: 'Images', what: 'image generation', upstream: false },
  videos: { path: '/v1/videos/generations', setting: 'Videos', what: 'video generation', upstream: false },
  videosStream: { path: '/v1/videos/generations/stream', setting: 'VideosStream', what: 'streamed video generation', upstream: false },
  responses: { path: '/v1/responses', setting: 'Responses', what: 'Responses API', upstream: true },
  models: { path: '/v1/models', setting: 'Models', what: 'model list', upstream: true },
  tokenize: { path: '/tokenize', setting: 'Tokenize', what: 'tokenize (vLLM-style)', upstream: false },
  detokenize: { path: '/detokenize', setting: 'Detokenize', what: 'detokenize (vLLM-style)', upstream: false },
  inferenceGenerate: { path: '/inference/v1/generate', setting: 'InferenceGenerate', what: 'token-in/token-out generation', upstream: false },
  /** Anthropic Messages; count_tokens is below it. */
  anthropic: { path: '/v1/messages', setting: 'Anthropic', what: 'Anthropic Messages API', upstream: true },
  health: { path: '/health', setting: 'Health', what: 'health check', upstream: true },
  live: { path: '/live', setting: 'Live', what: 'liveness check', upstream: true },
  metrics: { path: '/metrics', setting: 'Metrics', what: 'Prometheus metrics', upstream: true },
  busyThreshold: { path: '/busy_threshold', setting: 'BusyThreshold', what: 'busy-threshold admin', upstream: false },
  openapi: { path: '/openapi.json', setting: 'Openapi', what: 'OpenAPI document', upstream: false },
  docs: { path: '/docs', setting: 'Docs', what: 'Swagger UI', upstream: false },
  /** The live dashboard; its assets and events are below it. */
  dashboard: { path: '/dashboard', setting: 'Dashboard', what: 'live dashboard (its assets and events below it)', upstream: false },
} as const satisfies Record<string, HttpRoutePlace>;

export type HttpRouteName = keyof typeof HTTP_ROUTES;

/** The route names, in the table's order. */
export const HTTP_ROUTE_NAMES = Object.keys(HTTP_ROUTES) as readonly HttpRouteName[];

/** Where each route is served. */
export type HttpPaths = { [K in HttpRouteName]: string };

/** One value per route. */
export function perHttpRoute<T>(value: (name: HttpRouteName) => T): { [K in HttpRouteName]: T } {
  // fromEntries types its keys as strings; they are the table's names, every one of them.
  return Object.fromEntries(HTTP_ROUTE_NAMES.map((name) => [name, value(name)])) as { [K in HttpRouteName]: T };
}

export const DEFAULT_HTTP_PATHS: HttpPaths = perHttpRoute((name) => HTTP_ROUTES[name].path);
