// The library's KServe frontend: the gRPC service and, when asked, a side HTTP server for
// /metrics, /health and /live (upstream's --grpc-metrics-port), over one model manager and registry.

import { startGrpcFrontend, type GrpcFrontendOptions, type RunningGrpcFrontend } from '../../frontends/grpc/index.js';
import { packageVersion } from '../../config/index.js';
import { DEFAULT_HTTP_PATHS, HttpService } from '../../frontends/http/index.js';
import { ModelManager } from '../../models/index.js';
import { createLogger, meteredRequestScope, MetricsRegistry } from '../../observability/index.js';
import type { RequestScope } from '../../protocols/index.js';

export interface KserveFrontendOptions extends Partial<GrpcFrontendOptions> {
  /**
   * The scope of this frontend's request events, from whoever counts them. When absent the
   * frontend makes its own and counts its requests into `metrics` until it stops.
   */
  requestScope?: RequestScope;
  /** Side HTTP server port for /metrics, /health, /live (upstream default 8788); null for none. */
  metricsPort?: number | null;
}

export interface RunningKserveFrontend extends RunningGrpcFrontend {
  /** Port of the side HTTP server, when started. */
  readonly metricsPort?: number;
}

export async function startKserveFrontend(opts: KserveFrontendOptions = {}): Promise<RunningKserveFrontend> {
  const { metricsPort, ...grpcOptions } = opts;
  const logger = opts.logger ?? createLogger('info');
  const metrics = opts.metrics ?? new MetricsRegistry();
  const models = opts.models ?? new ModelManager();
  const counted = opts.requestScope ? { scope: opts.requestScope, close: () => undefined } : meteredRequestScope(metrics, 'kserve-grpc');
  const requestScope = counted.scope;
  const started = await startGrpcFrontend({ ...grpcOptions, logger, metrics, models, requestScope });
  const grpc = {
    ...started,
    async stop() {
      await started.stop();
      counted.close();
    },
  };
  if (metricsPort === null || metricsPort === undefined) return grpc;
  const side = new HttpService(
    {
      host: opts.host ?? '0.0.0.0',
      port: metricsPort,
      bodyLimitMb: 1,
      overloadStatus: 503,
      gracefulShutdownSecs: 0,
      forceIncludeUsage: false,
      paths: DEFAULT_HTTP_PATHS,
      version: packageVersion(),
      logger,
      metrics,
      requestScope,
      kserve: grpc.kserve,
    },
    models,
  );
  const sidePort = await side.listen();
  logger.info({ metricsPort: sidePort }, 'KServe side metrics server listening');
  return {
    ...grpc,
    metricsPort: sidePort,
    async stop() {
      await grpc.stop();
      await side.shutdown();
    },
  };
}
