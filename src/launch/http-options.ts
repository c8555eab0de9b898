import { packageVersion, type Config } from '../config/index.js';
import { DEFAULT_HTTP_PATHS, type HttpServiceOptions } from '../frontends/http/index.js';
import type { Logger, MetricsRegistry } from '../observability/index.js';
import type { RequestScope } from '../protocols/index.js';
import { tlsFiles } from './tls.js';

/** The HTTP service settings of a frontend (`serve` and `frontend` alike). */
export function httpServiceOptions(config: Config, logger: Logger, metrics: MetricsRegistry, requestScope: RequestScope): HttpServiceOptions {
  return {
    host: config.httpHost,
    port: config.httpPort,
    bodyLimitMb: config.httpBodyLimitMb,
    overloadStatus: config.httpOverloadStatusCode,
    gracefulShutdownSecs: config.httpGracefulShutdownTimeoutSecs,
    forceIncludeUsage: config.enableForceIncludeUsage,
    contextWindow: config.contextWindow,
    maxOutputTokens: config.maxOutputTokens,
    paths: {
      chat: config.httpSvcChatPath ?? DEFAULT_HTTP_PATHS.chat,
      completions: config.httpSvcCmpPath ?? DEFAULT_HTTP_PATHS.completions,
      models: config.httpSvcModelsPath ?? DEFAULT_HTTP_PATHS.models,
      health: config.httpSvcHealthPath ?? DEFAULT_HTTP_PATHS.health,
      live: config.httpSvcLivePath ?? DEFAULT_HTTP_PATHS.live,
      metrics: config.httpSvcMetricsPath ?? DEFAULT_HTTP_PATHS.metrics,
      busyThreshold: config.httpSvcBusyThresholdPath ?? DEFAULT_HTTP_PATHS.busyThreshold,
      openapi: config.httpSvcOpenapiPath ?? DEFAULT_HTTP_PATHS.openapi,
      docs: config.httpSvcDocsPath ?? DEFAULT_HTTP_PATHS.docs,
    },
    version: packageVersion(),
    logger,
    metrics,
    requestScope,
    sseKeepAliveMs: config.httpSseKeepAliveIntervalMs,
    preCommitErrorPeekMs: config.httpPreCommitErrorPeekMs,
    backendStreamTimeoutSecs: config.httpBackendStreamTimeoutSecs,
    disableAdminApi: config.disableFrontendAdminApi,
    tls: tlsFiles(config),
  };
}
