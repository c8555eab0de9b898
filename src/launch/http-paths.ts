// Where each HTTP route lives: one DYN_HTTP_SVC_*_PATH option per route, checked for clashes
// before anything listens (two routes on one path would otherwise fail deep inside fastify).
import { ConfigError, OPTIONS, type Config } from '../config/index.js';
import type { HttpPaths } from '../frontends/http/index.js';

/** The option that places each route; the compiler asks for a row when a route is added. */
const PATH_OPTIONS = {
  chat: 'httpSvcChatPath',
  completions: 'httpSvcCmpPath',
  responses: 'httpSvcResponsesPath',
  anthropic: 'httpSvcAnthropicPath',
  embeddings: 'httpSvcEmbPath',
  images: 'httpSvcImagesPath',
  videos: 'httpSvcVideosPath',
  videosStream: 'httpSvcVideosStreamPath',
  models: 'httpSvcModelsPath',
  health: 'httpSvcHealthPath',
  live: 'httpSvcLivePath',
  metrics: 'httpSvcMetricsPath',
  busyThreshold: 'httpSvcBusyThresholdPath',
  openapi: 'httpSvcOpenapiPath',
  docs: 'httpSvcDocsPath',
  dashboard: 'httpSvcDashboardPath',
} as const satisfies Record<keyof HttpPaths, keyof Config>;

const envOf = (key: string): string => OPTIONS.find((spec) => spec.key === key)?.env ?? key;

/** The configured path of every route; throws ConfigError (exit 2) when two routes share one. */
export function httpPaths(config: Config): HttpPaths {
  const owner = new Map<string, string>();
  for (const key of Object.values(PATH_OPTIONS)) {
    const path = config[key];
    const other = owner.get(path);
    if (other !== undefined) throw new ConfigError(`${other} and ${envOf(key)} are both '${path}': every route needs its own path`);
    owner.set(path, envOf(key));
  }
  return Object.fromEntries(Object.entries(PATH_OPTIONS).map(([route, key]) => [route, config[key]])) as unknown as HttpPaths;
}
