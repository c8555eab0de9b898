// `dynamo-ts frontend`: the HTTP frontend with no engine of its own. Models and workers come and go
// through discovery; requests reach workers over the request plane they publish. `serve` starts its
// frontend through the same path, over an in-process runtime.
import type { Socket } from 'node:net';
import type { Config } from '../../config/index.js';
import type { RunningGrpcFrontend } from '../../frontends/grpc/index.js';
import type { HttpService } from '../../frontends/http/index.js';
import { ModelManager, ModelWatcher, ServedIndexers, type ModelWatcherObserver } from '../../models/index.js';
import { moduleLogger, type Logger } from '../../observability/index.js';
import { DistributedRuntime, namespaceScope } from '../../runtime/index.js';
import { ConfiguredBridges } from '../bridge/index.js';
import { startFrontendServices, type FrontendServices } from './frontend-services.js';
import { startInteractiveChat } from './interactive-chat.js';
import { kserveLayout } from './kserve.js';
import { assertRouterSettings, effectiveRouterConfig, modelWatcherSettings } from '../model-settings.js';
import { installRouteExtensions, loadRouteExtensions } from './route-extensions.js';
import { startRlAdmin, type RunningRlAdmin } from './rl-admin.js';
import { assertRouterStateSupported, frontendEventPlane, routerStateFactory } from '../router-state.js';
import { runtimeOptionsFromConfig } from '../runtime-options.js';

/** Where connections another process accepted go: the HTTP service's, and gRPC's when it runs. */
export interface TakenConnections {
  readonly http: (socket: Socket) => void;
  readonly grpc?: (socket: Socket) => void;
}

export interface RunFrontendOptions {
  /** Told as the watcher makes models live (`serve` waits for its workers' model through it). */
  readonly observer?: ModelWatcherObserver;
  /**
   * Runs once the watcher is running, before HTTP takes connections (one of several frontend
   * processes waits there for its models, so it never answers 404 for a model its siblings serve).
   */
  readonly beforeListen?: (services: FrontendServices) => Promise<void>;
  /** Listen on nothing: serve the connections another process accepts, handed to `FrontendService.accept` (a frontend pool's processes). */
  readonly takeConnections?: boolean;
  /**
   * `false`: bind no HTTP port; the service is built and serves only what is handed to `http.app.inject()`
   * (an embedder's or a test's requests, with no socket). Other listeners (gRPC, RL admin) follow their own flags.
   */
  readonly listen?: boolean;
}

export interface FrontendService {
  readonly port: number;
  /** With `takeConnections`: where to hand the connections. */
  readonly accept?: TakenConnections;
  readonly models: ModelManager;
  readonly runtime: DistributedRuntime;
  readonly http: HttpService;
  /** The KServe gRPC frontend, with --kserve-grpc-server or --grpc-port. */
  readonly grpc?: RunningGrpcFrontend;
  /** With --interactive: resolves when the user ends the terminal chat. */
  readonly done?: Promise<void>;
  /** The bridged upstreams of --upstream-config. */
  readonly bridges?: ConfiguredBridges;
  /** The bound port of the RL admin listener, with DYN_ENABLE_RL_ENDPOINTS. */
  readonly rlPort?: number;
  /** Drains and stops the services, then the watcher, then shuts the runtime down. */
  stop(): Promise<void>;
}

export async function startFrontend(config: Config, logger: Logger): Promise<FrontendService> {
  assertRouterStateSupported(config, frontendEventPlane(config));
  const runtime = await DistributedRuntime.create(runtimeOptionsFromConfig(config, logger));
  return runFrontend(config, logger, runtime);
}

/** The frontend over `runtime`: its model watcher fills the models the HTTP and gRPC services serve. */
export async function runFrontend(given: Config, logger: Logger, runtime: DistributedRuntime, opts: RunFrontendOptions = {}): Promise<FrontendService> {
  const { observer, beforeListen, takeConnections = false, listen = true } = opts;
  assertRouterSettings(given);
  // The router policy file's `router:` settings count as flags from here on.
  const config = effectiveRouterConfig(given);
  const models = new ModelManager();
  models.holdUntilWorkers(config.routerMinInitialWorkers);
  // Extensions load first: a bad one fails startup before anything listens.
  const extensions = await loadRouteExtensions(config);
  // The services start before the watcher: discovered tensor models register with their KServe core.
  // A gRPC port in use fails here: nothing of the runtime may keep the process alive after.
  const services = await startFrontendServices(config, models, logger, runtime.planes, takeConnections).catch(async (err: unknown) => {
    await runtime.shutdown();
    throw err;
  });
  const { http, grpc } = services;
  try {
    await installRouteExtensions(http, models, logger, extensions);
  } catch (err) {
    await services.stop();
    throw err;
  }
  const watcher = new ModelWatcher({
    backend: runtime.discovery,
    requestClient: runtime.requestClient,
    events: () => runtime.events,
    planes: runtime.planes,
    models,
    settings: modelWatcherSettings(config),
    logger: moduleLogger(logger, 'discovery'),
    inScope: namespaceScope({
      namespace: config.namespace,
      namespacePrefix: config.namespacePrefix,
      strict: config.namespacePrefixStrict,
    }),
    tensorModels: services.kserve.models,
    routerState: routerStateFactory(config, moduleLogger(logger, 'router')),
    indexers: config.serveIndexer
      ? new ServedIndexers((ns, component, endpoint, handler) => runtime.namespace(ns).component(component).endpoint(endpoint).serveEndpoint(handler), !config.routerKvEvents)
      : undefined,
    observer,
  });
  try {
    await watcher.start();
  } catch (err) {
    // Discovery unreachable: undo the start, so the process can retry or exit cleanly.
    await watcher.stop();
    await services.stop();
    await runtime.shutdown();
    throw err;
  }
  // The upstreams of --upstream-config register like any worker: the watcher above finds them.
  let bridges: ConfiguredBridges | undefined;
  if (config.upstreamConfig) {
    bridges = new ConfiguredBridges(config.upstreamConfig, config, runtime, moduleLogger(logger, 'bridge'));
    try {
      await bridges.start();
    } catch (err) {
      await bridges.stop();
      await watcher.stop();
      await services.stop();
      await runtime.shutdown();
      throw err;
    }
  }
  let rl: RunningRlAdmin | undefined;
  try {
    await beforeListen?.(services);
    rl = await startRlAdmin(config, runtime, services.keys, logger);
  } catch (err) {
    await bridges?.stop();
    await services.stop();
    await watcher.stop();
    await runtime.shutdown();
    throw err;
  }
  // Interactive mode chats in the terminal instead of serving HTTP (as upstream's -i).
  const chat = config.interactive ? startInteractiveChat(config, models, services.requestScope, logger) : undefined;
  const stop = async (): Promise<void> => {
    await rl?.close();
    await services.stop();
    await bridges?.stop();
    await watcher.stop();
    await runtime.shutdown();
  };
  let takenHttp: ((socket: Socket) => void) | undefined;
  let port = 0;
  try {
    takenHttp = takeConnections && !chat ? await http.takeConnections() : undefined;
    if (takenHttp) port = kserveLayout(config)?.httpPort ?? config.httpPort;
    else if (!chat && listen) port = await http.listen();
  } catch (err) {
    // A port in use: undone, so the process can say so in one line and exit.
    await stop();
    throw err;
  }
  if (!chat && listen) {
    logger.info(
      { host: config.httpHost, port, discovery: config.discoveryBackend, requestPlane: config.requestPlane },
      'dynamo-ts frontend listening',
    );
  }
  return {
    port,
    models,
    runtime,
    http,
    grpc,
    bridges,
    accept: takenHttp && { http: takenHttp, grpc: grpc?.accept },
    rlPort: rl?.port,
    done: chat?.done,
    stop,
  };
}
