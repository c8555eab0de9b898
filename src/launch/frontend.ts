// `dynamo-ts frontend`: the HTTP frontend with no engine of its own. Models and workers come and go
// through discovery; requests reach workers over the request plane they publish.
import type { Config } from '../config/index.js';
import { ModelManager } from '../models/index.js';
import type { Logger } from '../observability/index.js';
import { DistributedRuntime, namespaceScope } from '../runtime/index.js';
import { startFrontendServices } from './frontend-services.js';
import { ModelWatcher } from './model-watcher.js';
import { assertRouterStateSupported, frontendEventPlane, routerStateFactory } from './router-state.js';
import { runtimeOptionsFromConfig } from './runtime-options.js';

export interface FrontendService {
  readonly port: number;
  readonly models: ModelManager;
  readonly runtime: DistributedRuntime;
  stop(): Promise<void>;
}

export async function startFrontend(config: Config, logger: Logger): Promise<FrontendService> {
  assertRouterStateSupported(config, frontendEventPlane(config));
  const runtime = await DistributedRuntime.create(runtimeOptionsFromConfig(config, logger));
  const models = new ModelManager();
  // gRPC starts before the watcher: discovered tensor models register with it.
  const services = await startFrontendServices(config, models, logger);
  const { http, grpc } = services;
  const watcher = new ModelWatcher({
    backend: runtime.discovery,
    requestClient: runtime.requestClient,
    events: () => runtime.events,
    models,
    config,
    logger,
    inScope: namespaceScope({
      namespace: config.namespace,
      namespacePrefix: config.namespacePrefix,
      strict: config.namespacePrefixStrict,
    }),
    tensorModels: grpc,
    routerState: routerStateFactory(config, logger),
  });
  await watcher.start();
  const port = await http.listen();
  logger.info(
    { host: config.httpHost, port, discovery: config.discoveryBackend, requestPlane: config.requestPlane },
    'dynamo-ts frontend listening',
  );
  return {
    port,
    models,
    runtime,
    async stop() {
      await services.stop();
      watcher.stop();
      await runtime.shutdown();
    },
  };
}
