import { DEFAULT_HTTP_PATHS, HttpService, type HttpServiceOptions } from '../../src/frontends/http/index.js';
import { modelSettings } from '../../src/launch/model-settings.js';
import { assembleModel, loadDefaultModelCard, ModelManager, type ModelDeploymentCard } from '../../src/models/index.js';
import { createLogger, meteredRequestScope, MetricsRegistry } from '../../src/observability/index.js';
import type { EngineClient } from '../../src/protocols/index.js';
import { injectedOrigin } from './injected-fetch.js';
import { runConfig } from './run-config.js';

type ServiceArgs = [
  engines: Record<string, EngineClient | EngineClient[]>,
  options?: Partial<HttpServiceOptions>,
  /** The card of model `name`; the default tokenizer's card when absent. */
  cardOf?: (name: string) => ModelDeploymentCard,
  env?: Record<string, string>,
];

/**
 * An HTTP service whose models are scripted engines: model `name` is served by `engines[name]`
 * (one instance, or a list of instances with ids 1, 2, ...) with the default tokenizer, listening on a
 * loopback port. Resolves to the service and its base URL. Without a request scope
 * in `options`, its requests are counted into `options.metrics` (or a new registry) until it stops.
 * `env` sets DYN_* options of the models' routers (DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS).
 * For tests that need a real socket (keep-alive, disconnects, trickled bodies); the others use injectedHttpWithEngines.
 */
export async function httpWithEngines(...args: ServiceArgs) {
  const http = serviceWithEngines(...args);
  return { http, baseUrl: `http://127.0.0.1:${await http.listen()}` };
}

/**
 * The same service without a port: `fetch` (and `postJson` on `baseUrl`) hand requests to fastify's `inject()`.
 * Pass `fetch` to SDK clients and use it in place of the global one.
 */
export async function injectedHttpWithEngines(...args: ServiceArgs) {
  const http = serviceWithEngines(...args);
  return { http, ...injectedOrigin(http.app) };
}

function serviceWithEngines(
  engines: ServiceArgs[0],
  options: Partial<HttpServiceOptions> = {},
  cardOf: ServiceArgs[2] = (name) => loadDefaultModelCard({ displayName: name }),
  env: Record<string, string> = {},
): HttpService {
  const config = runConfig(['serve'], env);
  const models = new ModelManager();
  for (const [name, engine] of Object.entries(engines)) {
    const { served: model } = assembleModel(cardOf(name), modelSettings(config), {
      namespace: 'dynamo',
      component: 'backend',
      endpoint: 'generate',
    });
    model.router.setInstances([engine].flat().map((client, i) => ({ id: BigInt(i + 1), client })));
    models.add(model);
  }
  const metrics = options.metrics ?? new MetricsRegistry();
  const requests = options.requestScope ? { scope: options.requestScope, close: () => undefined } : meteredRequestScope(metrics, 'test-http');
  const http = new HttpService(
    {
      host: '127.0.0.1',
      port: 0,
      bodyLimitMb: 45,
      overloadStatus: 529,
      gracefulShutdownSecs: 1,
      forceIncludeUsage: false,
      paths: DEFAULT_HTTP_PATHS,
      logger: createLogger('silent'),
      ...options,
      version: options.version ?? 'test',
      metrics,
      requestScope: requests.scope,
    },
    models,
  );
  http.app.addHook('onClose', async () => requests.close());
  return http;
}
