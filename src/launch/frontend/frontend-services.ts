import type { Config } from '../../config/index.js';
import type { RunningGrpcFrontend } from '../../frontends/grpc/index.js';
import { HttpService } from '../../frontends/http/index.js';
import { createKserveCore, type KserveCore } from '../../kserve/index.js';
import { clusterStats, type ModelManager } from '../../models/index.js';
import { DashboardFeed, meteredRequestScope, MetricsRegistry, registerClusterMetrics, registerPlaneMetrics, registerProcessMetrics, type Logger } from '../../observability/index.js';
import type { KeyCheck, PlaneStatusView, RequestScope } from '../../protocols/index.js';
import { apiKeyStore } from '../api-keys.js';
import { httpServiceOptions } from './http-options.js';
import { kserveLayout, startKserveGrpc } from './kserve.js';
import { traceFrontend } from '../tracing.js';
import { adminApiServed } from '../surfaces.js';

export interface FrontendServices {
  /** Not listening yet: the caller starts it once its models are in place. */
  http: HttpService;
  /** The KServe gRPC frontend, running, with --kserve-grpc-server or --grpc-port. */
  grpc?: RunningGrpcFrontend;
  /** What KServe serves (gRPC and Triton's HTTP routes): discovered tensor models go here. */
  kserve: KserveCore;
  /** The scope this frontend's request events are published in (counted into its metrics). */
  requestScope: RequestScope;
  /** The registry `/metrics` renders (HTTP and the gRPC side port). */
  metrics: MetricsRegistry;
  /** The API keys every listener of this frontend checks. */
  keys: KeyCheck;
  /** Stops gRPC, then drains and stops HTTP. */
  stop(): Promise<void>;
}

/**
 * The HTTP service and, when configured, the KServe gRPC frontend over one model manager and one
 * metrics registry. Both publish their requests' events in one scope, counted into the registry.
 * `planes` (the runtime's) is what /health and /metrics say of etcd, NATS and ZMQ. With
 * `takeConnections`, gRPC binds nothing: it serves the connections handed to `grpc.accept`.
 */
export async function startFrontendServices(
  config: Config,
  models: ModelManager,
  logger: Logger,
  planes?: PlaneStatusView,
  takeConnections = false,
): Promise<FrontendServices> {
  const kserve = kserveLayout(config);
  const metrics = new MetricsRegistry(config.metricsPrefix);
  const keys = apiKeyStore(config, logger);
  const requests = meteredRequestScope(metrics, 'frontend');
  const tracing = await traceFrontend(config, requests.scope);
  const stats = clusterStats(models);
  registerClusterMetrics(metrics, stats);
  if (planes) registerPlaneMetrics(metrics, planes);
  const stopProcessMetrics = registerProcessMetrics(metrics, requests.scope);
  const access = { keys: keys.keys, adminApi: adminApiServed(config), protectMetrics: config.protectMetrics };
  const dashboard = config.dashboard
    ? new DashboardFeed(stats, requests.scope, { onError: (err) => logger.warn({ err }, 'dashboard snapshot failed') })
    : undefined;
  let grpc: RunningGrpcFrontend | undefined;
  let core: KserveCore;
  let http: HttpService;
  try {
    // One KServe core for gRPC and Triton's HTTP routes: same models, checks and statistics.
    core = createKserveCore(models, requests.scope, config.modelRepository);
    http = new HttpService({ ...httpServiceOptions(config, logger, metrics, requests.scope), access, dashboard, kserve: core, planes, port: kserve?.httpPort ?? config.httpPort }, models);
    grpc = kserve ? await startKserveGrpc(config, kserve, core, metrics, logger, keys.keys, takeConnections) : undefined;
  } catch (err) {
    stopProcessMetrics();
    requests.close();
    keys.close();
    await tracing.stop();
    throw err;
  }
  return {
    http,
    grpc,
    kserve: core,
    requestScope: requests.scope,
    metrics,
    keys: keys.keys,
    async stop() {
      // Readiness flips before anything else stops, the gRPC drain included.
      http.beginDraining();
      await grpc?.stop();
      await http.shutdown();
      requests.close();
      keys.close();
      stopProcessMetrics();
      // Spans of the drained requests go out before the process exits.
      await tracing.stop();
    },
  };
}
