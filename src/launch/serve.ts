// `dynamo-ts serve`: `frontend` + `mocker` in one process, over an in-process runtime (mem
// discovery, in-process request and event planes). The workers register, publish KV events and
// load, and the frontend discovers and routes to them, exactly as in a cluster.
import { randomUUID } from 'node:crypto';
import { ConfigError, type Config } from '../config/index.js';
import type { MockerEngine } from '../engines/mocker/index.js';
import type { RunningGrpcFrontend } from '../frontends/grpc/index.js';
import type { HttpService } from '../frontends/http/index.js';
import { ModelArrival, type ModelManager } from '../models/index.js';
import type { Logger } from '../observability/index.js';
import { DistributedRuntime } from '../runtime/index.js';
import { runFrontend, type FrontendService } from './frontend/index.js';
import { runMockers, siblings, type RunningMocker } from './mocker/index.js';
import { assertRouterStateSupported } from './router-state.js';
import { runtimeOptionsFromConfig } from './runtime-options.js';

export interface ServeOptions {
  /** `false`: bind no HTTP port; requests reach the service through `http.app.inject()` (see RunFrontendOptions). */
  readonly listen?: boolean;
}

export interface RunningService {
  /** The bound HTTP port (0 when not listening). */
  readonly port: number;
  readonly models: ModelManager;
  readonly http: HttpService;
  readonly engines: readonly MockerEngine[];
  /** The instance id of each engine, in the same order. */
  readonly instanceIds: readonly bigint[];
  /** The KServe gRPC frontend, with --kserve-grpc-server or --grpc-port. */
  readonly grpc?: RunningGrpcFrontend;
  /** With --interactive: resolves when the user ends the terminal chat. */
  readonly done?: Promise<void>;
  /** The bound port of the RL admin listener, with DYN_ENABLE_RL_ENDPOINTS. */
  readonly rlPort?: number;
  stop(): Promise<void>;
}

/**
 * `serve` picks its own discovery and planes (in-process; with several frontend processes, private
 * ones on loopback); those of a deployment belong to `frontend` + `mocker`. Accepting them here
 * and ignoring them would mislead.
 */
export function assertSingleProcess(config: Config): void {
  const shared: [string, string, string][] = [
    ['--discovery-backend', config.discoveryBackend, 'mem'],
    ['--request-plane', config.requestPlane, 'inproc'],
    ['--response-plane', config.responsePlane, 'inproc'],
    ['--event-plane', config.eventPlane ?? 'inproc', 'inproc'],
  ];
  for (const [flag, value, only] of shared) {
    if (value !== only) {
      throw new ConfigError(
        `${flag} ${value} does not apply to 'dynamo-ts serve', which runs the frontend and its engines in one process (${flag} ${only}); run 'dynamo-ts frontend' and 'dynamo-ts mocker' for ${value}`,
      );
    }
  }
}

/**
 * The frontend and `--num-workers` mocker workers, each worker a sibling instance of the frontend's
 * runtime. Returns once the frontend has discovered the model (with every worker, unless
 * `--startup-time` delays them).
 */
export async function startServe(config: Config, logger: Logger, options: ServeOptions = {}): Promise<RunningService> {
  assertSingleProcess(config);
  assertRouterStateSupported(config, 'inproc');
  const local: Config = { ...config, eventPlane: 'inproc' };
  // A discovery store and event table of its own: several `serve`s in one process stay apart.
  const runtime = await DistributedRuntime.create({ ...runtimeOptionsFromConfig(local, logger), memScope: `serve-${randomUUID()}` });
  const arrival = new ModelArrival();
  let workers: RunningMocker | undefined;
  let frontend: FrontendService | undefined;
  try {
    workers = await runMockers(local, logger, () => siblings(runtime, config.numWorkers));
    frontend = await runFrontend(local, logger, runtime, { observer: arrival, listen: options.listen });
    await arrival.until(workers.card.displayName, config.startupTime ? 0 : workers.runtimes.length);
  } catch (err) {
    await (frontend ? frontend.stop() : runtime.shutdown());
    await workers?.stop();
    throw err;
  }
  if (options.listen !== false) logger.info({ host: config.httpHost, port: frontend.port, model: workers.card.displayName, workers: workers.runtimes.length }, 'dynamo-ts serve listening');
  const { port, models, http, grpc, done, rlPort } = frontend;
  return {
    port,
    models,
    http,
    grpc,
    done,
    rlPort,
    engines: workers.engines,
    instanceIds: workers.runtimes.map((rt) => rt.instanceId),
    async stop() {
      // Draining first: in-flight requests finish on engines that are still running.
      await frontend.stop();
      await workers.stop();
    },
  };
}
