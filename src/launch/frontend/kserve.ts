import type { Config } from '../../config/index.js';
import { startGrpcFrontend, type RunningGrpcFrontend } from '../../frontends/grpc/index.js';
import type { KserveCore } from '../../kserve/index.js';
import { moduleLogger, type Logger, type MetricsRegistry } from '../../observability/index.js';
import { ApiKeys, anyKeyOf, type KeyCheck } from '../../protocols/index.js';
import { grpcTlsFiles } from '../tls.js';
import { adminApiServed } from '../surfaces.js';

export interface KserveLayout {
  grpcPort: number;
  /** Where the HTTP service listens: the API port, or the side metrics port when gRPC takes --http-port. */
  httpPort: number;
}

/**
 * Upstream: --kserve-grpc-server serves gRPC on --http-port and moves HTTP to --grpc-metrics-port.
 * With --grpc-port, gRPC listens there alongside the HTTP API (Triton's 8000/8001 layout).
 */
export function kserveLayout(config: Config): KserveLayout | undefined {
  if (config.grpcPort !== undefined) return { grpcPort: config.grpcPort, httpPort: config.httpPort };
  if (config.kserveGrpcServer || config.kserveMode) return { grpcPort: config.httpPort, httpPort: config.grpcMetricsPort };
  return undefined;
}

export function startKserveGrpc(
  config: Config,
  layout: KserveLayout,
  core: KserveCore,
  metrics: MetricsRegistry,
  logger: Logger,
  keys: KeyCheck,
  takeConnections: boolean,
): Promise<RunningGrpcFrontend> {
  // --grpc-auth-token is one more key, accepted on gRPC only.
  const grpcKeys = config.grpcAuthToken === undefined ? keys : anyKeyOf([keys, new ApiKeys([config.grpcAuthToken])]);
  return startGrpcFrontend({
    host: config.httpHost,
    port: layout.grpcPort,
    models: core.models.manager,
    kserve: core,
    metrics,
    requestScope: core.requestScope,
    logger: moduleLogger(logger, 'grpc'),
    tls: grpcTlsFiles(config),
    access: { keys: grpcKeys, adminApi: adminApiServed(config) },
    maxMessageSize: config.maxMessageSize,
    keepaliveTimeMs: config.grpcKeepaliveTimeMs,
    keepaliveTimeoutMs: config.grpcKeepaliveTimeoutMs,
    connectionWindowSize: config.grpcInitialConnectionWindowSize,
    streamWindowSize: config.grpcInitialStreamWindowSize,
    modelRepository: config.modelRepository,
    metadataPrefix: config.metadataHeader,
    takeConnections,
  });
}
