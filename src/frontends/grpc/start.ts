// Library entry: start the KServe gRPC frontend in this process, over a shared ModelManager and
// metrics registry, with an optional side HTTP server for /metrics, /health and /live.

import { DEFAULT_HTTP_PATHS, HttpService } from '../http/index.js';
import { ModelManager } from '../../models/index.js';
import { createLogger, meteredRequestScope, MetricsRegistry, type Logger } from '../../observability/index.js';
import { ModelRepository } from './model-config/repository.js';
import { KserveModels } from './model-registry.js';
import { KserveGrpcServer, type KserveGrpcOptions } from './server.js';
import type { RequestScope, TensorModel } from '../../protocols/index.js';

export interface FrontendOptions extends Partial<Omit<KserveGrpcOptions, 'logger' | 'metrics' | 'requestScope'>> {
  /** Shared with other frontends; a new one when absent. */
  models?: ModelManager;
  metrics?: MetricsRegistry;
  /**
   * The scope of this frontend's request events, from whoever counts them. When absent the
   * frontend makes its own and counts its requests into `metrics` until it stops.
   */
  requestScope?: RequestScope;
  logger?: Logger;
  /** Side HTTP server port for /metrics, /health, /live (upstream default 8788); null for none. */
  metricsPort?: number | null;
  /** A Triton-layout model repository whose config.pbtxt files describe the served models. */
  modelRepository?: string;
  tensorModels?: TensorModel[];
}

export interface RunningFrontend {
  readonly grpcPort: number;
  /** Port of the side HTTP server, when started. */
  readonly metricsPort?: number;
  readonly models: KserveModels;
  readonly grpc: KserveGrpcServer;
  readonly metrics: MetricsRegistry;
  addTensorModel(model: TensorModel): void;
  removeTensorModel(name: string): boolean;
  stop(): Promise<void>;
}

export async function startFrontend(opts: FrontendOptions = {}): Promise<RunningFrontend> {
  const logger = opts.logger ?? createLogger('info');
  const metrics = opts.metrics ?? new MetricsRegistry();
  const { scope: requestScope, close: stopCounting } = opts.requestScope
    ? { scope: opts.requestScope, close: () => undefined }
    : meteredRequestScope(metrics, 'kserve-grpc');
  const manager = opts.models ?? new ModelManager();
  const repository = opts.modelRepository ? new ModelRepository(opts.modelRepository) : undefined;
  const models = new KserveModels(manager, repository);
  for (const m of opts.tensorModels ?? []) models.addTensorModel(m);
  const { tls } = opts;
  const grpcServer = new KserveGrpcServer(
    {
      host: opts.host ?? '0.0.0.0',
      port: opts.port ?? 8787,
      tls,
      authToken: opts.authToken,
      maxMessageSize: opts.maxMessageSize,
      keepaliveTimeMs: opts.keepaliveTimeMs,
      keepaliveTimeoutMs: opts.keepaliveTimeoutMs,
      connectionWindowSize: opts.connectionWindowSize,
      streamWindowSize: opts.streamWindowSize,
      metadataPrefix: opts.metadataPrefix,
      logger,
      metrics,
      requestScope,
    },
    models,
  );
  const grpcPort = await grpcServer.listen();
  let side: HttpService | undefined;
  let metricsPort: number | undefined;
  if (opts.metricsPort !== null && opts.metricsPort !== undefined) {
    side = new HttpService(
      {
        host: opts.host ?? '0.0.0.0',
        port: opts.metricsPort,
        bodyLimitMb: 1,
        overloadStatus: 503,
        gracefulShutdownSecs: 0,
        forceIncludeUsage: false,
        paths: DEFAULT_HTTP_PATHS,
        logger,
        metrics,
        requestScope,
      },
      manager,
    );
    metricsPort = await side.listen();
  }
  logger.info({ grpcPort, metricsPort, tls: tls !== undefined, mtls: tls?.ca !== undefined, auth: opts.authToken !== undefined }, 'KServe gRPC frontend listening');
  return {
    grpcPort,
    metricsPort,
    models,
    grpc: grpcServer,
    metrics,
    addTensorModel: (m) => models.addTensorModel(m),
    removeTensorModel: (name) => models.removeTensorModel(name),
    async stop() {
      await grpcServer.shutdown();
      await side?.shutdown();
      stopCounting();
    },
  };
}
