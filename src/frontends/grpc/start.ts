// Starts the KServe gRPC frontend over a ModelManager and a metrics registry shared with whatever
// else runs in the process. Side servers (/metrics, /health, /live) are composed in launch/.

import type { ModelManager } from '../../models/index.js';
import type { Logger, MetricsRegistry } from '../../observability/index.js';
import type { RequestScope, TensorModel } from '../../protocols/index.js';
import { ModelRepository } from './model-config/repository.js';
import { KserveModels } from './model-registry.js';
import { KserveGrpcServer, type KserveGrpcOptions } from './server.js';

export interface GrpcFrontendOptions extends Partial<Omit<KserveGrpcOptions, 'logger' | 'metrics' | 'requestScope'>> {
  models: ModelManager;
  metrics: MetricsRegistry;
  logger: Logger;
  /** The scope its request events are published under (whoever counts them subscribes to it). */
  requestScope: RequestScope;
  /** A Triton-layout model repository whose config.pbtxt files describe the served models. */
  modelRepository?: string;
  tensorModels?: TensorModel[];
}

export interface RunningGrpcFrontend {
  readonly grpcPort: number;
  readonly models: KserveModels;
  readonly grpc: KserveGrpcServer;
  readonly metrics: MetricsRegistry;
  addTensorModel(model: TensorModel): void;
  removeTensorModel(name: string): boolean;
  stop(): Promise<void>;
}

export async function startGrpcFrontend(opts: GrpcFrontendOptions): Promise<RunningGrpcFrontend> {
  const { logger, metrics, tls } = opts;
  const repository = opts.modelRepository ? new ModelRepository(opts.modelRepository) : undefined;
  const models = new KserveModels(opts.models, repository);
  for (const m of opts.tensorModels ?? []) models.addTensorModel(m);
  const grpcServer = new KserveGrpcServer(
    {
      host: opts.host ?? '0.0.0.0',
      port: opts.port ?? 8787,
      tls,
      access: opts.access,
      maxMessageSize: opts.maxMessageSize,
      keepaliveTimeMs: opts.keepaliveTimeMs,
      keepaliveTimeoutMs: opts.keepaliveTimeoutMs,
      connectionWindowSize: opts.connectionWindowSize,
      streamWindowSize: opts.streamWindowSize,
      metadataPrefix: opts.metadataPrefix,
      logger,
      metrics,
      requestScope: opts.requestScope,
    },
    models,
  );
  const grpcPort = await grpcServer.listen();
  logger.info({ grpcPort, tls: tls !== undefined, mtls: tls?.ca !== undefined, auth: opts.access?.keys.required ?? false }, 'KServe gRPC frontend listening');
  return {
    grpcPort,
    models,
    grpc: grpcServer,
    metrics,
    addTensorModel: (m) => models.addTensorModel(m),
    removeTensorModel: (name) => models.removeTensorModel(name),
    stop: () => grpcServer.shutdown(),
  };
}
