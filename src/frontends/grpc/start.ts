// Starts the KServe gRPC frontend over a ModelManager and a metrics registry shared with whatever
// else runs in the process. Side servers (/metrics, /health, /live) are composed in launch/.

import type { Socket } from 'node:net';
import { createKserveCore, type KserveCore, type KserveModels } from '../../kserve/index.js';
import type { ModelManager } from '../../models/index.js';
import type { Logger, MetricsRegistry } from '../../observability/index.js';
import type { RequestScope, TensorModel } from '../../protocols/index.js';
import { KserveGrpcServer, type KserveGrpcOptions } from './server.js';

export interface GrpcFrontendOptions extends Partial<Omit<KserveGrpcOptions, 'logger' | 'metrics'>> {
  models: ModelManager;
  metrics: MetricsRegistry;
  logger: Logger;
  /** The scope its request events are published under (whoever counts them subscribes to it). */
  requestScope: RequestScope;
  /**
   * The KServe core to serve, shared with Triton's HTTP routes; when absent one is made over
   * `models`, `modelRepository` and `requestScope`.
   */
  kserve?: KserveCore;
  /** A Triton-layout model repository whose config.pbtxt files describe the served models. */
  modelRepository?: string;
  tensorModels?: TensorModel[];
  /** Serve connections another process accepts and hands over (`RunningGrpcFrontend.accept`) instead of binding `port`. */
  takeConnections?: boolean;
}

export interface RunningGrpcFrontend {
  readonly grpcPort: number;
  readonly models: KserveModels;
  /** What it serves, shared with Triton's HTTP routes when given to both. */
  readonly kserve: KserveCore;
  readonly grpc: KserveGrpcServer;
  readonly metrics: MetricsRegistry;
  /** With `takeConnections`: serves a connection accepted elsewhere. */
  readonly accept?: (socket: Socket) => void;
  addTensorModel(model: TensorModel): void;
  removeTensorModel(name: string): boolean;
  stop(): Promise<void>;
}

export async function startGrpcFrontend(opts: GrpcFrontendOptions): Promise<RunningGrpcFrontend> {
  const { logger, metrics, tls } = opts;
  const core = opts.kserve ?? createKserveCore(opts.models, opts.requestScope, opts.modelRepository);
  const { models } = core;
  for (const m of opts.tensorModels ?? []) models.addTensorModel(m);
  const port = opts.port ?? 8787;
  const grpcServer = new KserveGrpcServer(
    {
      host: opts.host ?? '0.0.0.0',
      port,
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
    },
    core,
  );
  const accept = opts.takeConnections ? grpcServer.takeConnections() : undefined;
  const grpcPort = accept ? port : await grpcServer.listen();
  logger.info({ grpcPort, tls: tls !== undefined, mtls: tls?.ca !== undefined, auth: opts.access?.keys.required ?? false }, 'KServe gRPC frontend listening');
  return {
    grpcPort,
    models,
    kserve: core,
    grpc: grpcServer,
    metrics,
    accept,
    addTensorModel: (m) => models.addTensorModel(m),
    removeTensorModel: (name) => models.removeTensorModel(name),
    stop: () => grpcServer.shutdown(),
  };
}
