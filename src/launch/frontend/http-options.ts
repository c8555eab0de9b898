import { packageVersion, type Config } from '../../config/index.js';
import type { HttpServiceOptions } from '../../frontends/http/index.js';
import { moduleLogger, type Logger, type MetricsRegistry } from '../../observability/index.js';
import type { RequestLimits } from '../../pipeline/index.js';
import type { RequestScope } from '../../protocols/index.js';
import { httpPaths } from './http-paths.js';
import { responseStoreChoice } from '../response-store.js';
import { etcdEndpoints } from '../runtime-options.js';
import { adminApiServed } from '../surfaces.js';
import { natsTlsOptions, tlsFiles } from '../tls.js';

/** `--max-request-messages`, `--max-request-tools`, `--max-prompt-chars`. */
export function requestLimits(config: Config): RequestLimits {
  return { maxMessages: config.maxRequestMessages, maxTools: config.maxRequestTools, maxPromptChars: config.maxPromptChars };
}

/** The HTTP service settings of a frontend (`serve` and `frontend` alike). */
export function httpServiceOptions(config: Config, logger: Logger, metrics: MetricsRegistry, requestScope: RequestScope): HttpServiceOptions {
  return {
    host: config.httpHost,
    port: config.httpPort,
    bodyLimitMb: config.httpBodyLimitMb,
    parseThreadKb: config.httpBodyParseThreadKb,
    requestLimits: requestLimits(config),
    uploadTimeouts: { bodyTimeoutSecs: config.httpBodyTimeoutSecs, uploadTimeoutSecs: config.httpUploadTimeoutSecs },
    overloadStatus: config.httpOverloadStatusCode,
    gracefulShutdownSecs: config.httpGracefulShutdownTimeoutSecs,
    forceIncludeUsage: config.enableForceIncludeUsage,
    reasoningField: config.reasoningFieldName,
    reasoningDispatch: config.enableStreamingReasoningDispatch,
    toolCallDispatch: config.enableStreamingToolDispatch,
    rlTokenIds: config.enableRl,
    contextWindow: config.contextWindow,
    maxOutputTokens: config.maxOutputTokens,
    paths: httpPaths(config),
    version: packageVersion(),
    logger: moduleLogger(logger, 'http'),
    metrics,
    requestScope,
    sseKeepAliveMs: config.httpSseKeepAliveIntervalMs,
    preCommitErrorPeekMs: config.httpPreCommitErrorPeekMs,
    debugPerf: config.dynDebugPerf,
    disableAdminApi: !adminApiServed(config),
    anthropicApi: config.enableAnthropicApi ? { stripPreamble: config.stripAnthropicPreamble } : undefined,
    tls: tlsFiles(config),
    responseStore: {
      // The config of one process: a pool's processes have the store the pool chose.
      name: responseStoreChoice(config, 1).name,
      maxEntries: config.responseStoreMaxEntries,
      ttlSecs: config.responseStoreTtlSecs,
      path: config.responseStorePath,
      etcdEndpoints: etcdEndpoints(config),
      nats: { server: config.natsServer, tls: natsTlsOptions(config) },
    },
    responsesWebSocket: { maxMessageMb: config.responsesWsMaxMessageMb, idleTimeoutSecs: config.responsesWsIdleTimeoutSecs },
  };
}
