// `dynamo-ts mocker`: simulated engines as standalone workers. Each of `--num-workers` engines is
// its own instance (own lease and instance id) serving the model's endpoint and publishing its card,
// its KV events and its load. `serve` starts its workers through the same path.
import { withExtraEngineArgs, type Config } from '../../config/index.js';
import type { MockerEngine } from '../../engines/mocker/index.js';
import { toCardJson, type ModelDeploymentCard } from '../../models/index.js';
import { moduleLogger, type Logger } from '../../observability/index.js';
import { announceKvEvents, announceLoadMetrics, DistributedRuntime, type Endpoint } from '../../runtime/index.js';
import { RL_ENDPOINT, WORKER_TYPE_NEEDS } from '../../protocols/index.js';
import { MOCK_MODELS } from './mock-models.js';
import { mockerBlockSize, mockerWorkerType } from './mocker-options.js';
import { rlHandlers } from './mocker-rl.js';
import { traceEngines } from '../tracing.js';
import { runtimeOptionsFromConfig } from '../runtime-options.js';
import { loadConfiguredCard, parseEndpoint, workerParsers } from '../served-model.js';

export interface RunningMocker {
  /** One per engine, in the same order. */
  readonly runtimes: readonly DistributedRuntime[];
  /** The simulated LLM engines, one per runtime; none when the model is an embedding, image or video model. */
  readonly engines: readonly MockerEngine[];
  /** The card the workers publish. */
  readonly card: ModelDeploymentCard;
  stop(): Promise<void>;
}

/** `routerConfig`: the router_config the worker set declares in its card (launch/worker-router-config.ts); null: none. */
export async function startMocker(config: Config, logger: Logger, routerConfig: Record<string, unknown> | null = null): Promise<RunningMocker> {
  const onLeaseLost = (): void => {
    logger.error({}, 'discovery lease lost: exiting so a supervisor can restart this worker');
    process.exit(1);
  };
  const makeRuntimes = async (): Promise<DistributedRuntime[]> => {
    const first = await DistributedRuntime.create(runtimeOptionsFromConfig(config, logger, onLeaseLost));
    return [first, ...(await siblings(first, config.numWorkers - 1))];
  };
  return runMockers(config, logger, makeRuntimes, routerConfig);
}

/** `count` more instances in `runtime`'s process: shared connections, a lease and instance id each. */
export async function siblings(runtime: DistributedRuntime, count: number): Promise<DistributedRuntime[]> {
  const out: DistributedRuntime[] = [];
  for (let i = 0; i < count; i++) out.push(await runtime.sibling());
  return out;
}

/**
 * The card as upstream workers publish it: `runtime_config` carries the capacity busy detection
 * compares load with; `router_config`, when the worker set declares one, how to route to it.
 */
export function workerCardJson(card: ModelDeploymentCard, runtimeConfig: Record<string, unknown>, routerConfig: Record<string, unknown> | null = null): Record<string, unknown> {
  const json = toCardJson(card);
  return { ...json, runtime_config: { ...(json.runtime_config as Record<string, unknown>), ...runtimeConfig }, ...(routerConfig ? { router_config: routerConfig } : {}) };
}

/**
 * One mocker engine per runtime, registered through it. The card goes out at once, so frontends
 * know the model (not ready yet) while the engines load; the endpoints follow after
 * `--startup-time`, as a real engine takes requests once loaded. The runtimes are made only once
 * the model is loaded: loading blocks the event loop for a second or more, which a fresh etcd
 * lease with a short TTL may not survive.
 */
export async function runMockers(
  flags: Config,
  root: Logger,
  makeRuntimes: () => Promise<DistributedRuntime[]>,
  routerConfig: Record<string, unknown> | null = null,
): Promise<RunningMocker> {
  const config = withExtraEngineArgs(flags);
  const logger = moduleLogger(root, 'mocker');
  const blockSize = mockerBlockSize(config);
  const loaded = loadConfiguredCard(config, blockSize);
  // Prefill workers serve the `prefill` component by convention (pairing is by role, not by name).
  const component = mockerWorkerType(config) === 'prefill' ? 'prefill' : 'backend';
  const ep = parseEndpoint(config.endpoint ?? `dyn://${config.namespace || 'dynamo'}.${component}.generate`);
  // The mocker's output follows no grammar: structural tags stay off unless asked for (upstream's native mocker).
  const parsers = workerParsers(config, false, (message) => logger.warn({}, message));
  const instancesOf = MOCK_MODELS[config.modelType]({ config, card: loaded, blockSize, endpoint: ep, parsers });
  const runtimes = await makeRuntimes();
  const model = instancesOf(runtimes);
  const card: ModelDeploymentCard = { ...loaded, modelType: model.modelType };
  const { engines, handlers } = model;
  const tracing = await traceEngines(config);
  const endpointOf = (rt: DistributedRuntime, name = ep.endpoint): Endpoint => rt.namespace(ep.namespace).component(ep.component).endpoint(name);
  const rl = rlHandlers(config, model, runtimes, ep, card.displayName);

  const cardJson = { ...workerCardJson(card, model.runtimeConfig, routerConfig), worker_type: model.workerType, needs: WORKER_TYPE_NEEDS[model.workerType] };
  for (const rt of runtimes) await endpointOf(rt).registerModel(cardJson, { modelType: card.modelType, modelInput: card.modelInput });

  const serve = async (): Promise<void> => {
    const events = runtimes[0]!.events;
    await announceLoadMetrics(events, ep.namespace);
    if (model.runtimeConfig.kv_events === true) await announceKvEvents(events, ep.namespace, ep.component);
    for (const [i, rt] of runtimes.entries()) await endpointOf(rt).serveEndpoint(handlers[i]!);
    for (const [i, handler] of rl.entries()) await endpointOf(runtimes[i]!, RL_ENDPOINT).serveEndpoint(handler);
    logger.info({ model: card.displayName, modelType: card.modelType.join(' | '), endpoint: `${ep.namespace}.${ep.component}.${ep.endpoint}`, instances: runtimes.map((r) => r.instanceIdHex) }, 'dynamo-ts mocker registered');
  };
  const stopAnnouncing = announceAfterEventOutages(runtimes[0]!, engines);
  let startup: NodeJS.Timeout | undefined;
  if (config.startupTime) {
    startup = setTimeout(() => void serve().catch((err: Error) => logger.error({ err: err.message }, 'registration failed')), config.startupTime * 1000);
  } else {
    await serve();
  }
  return {
    runtimes,
    engines,
    card,
    async stop() {
      clearTimeout(startup);
      stopAnnouncing();
      for (const rt of runtimes.slice().reverse()) await rt.shutdown();
      for (const engine of engines) engine.close();
      await tracing.stop();
    },
  };
}

/**
 * KV events published while the event plane was down are lost: once it is back, each engine
 * publishes its whole cache again, so routers that predicted meanwhile hold the truth. The delay lets
 * the routers' own connections come back first (they reconnect as this process does).
 */
const ANNOUNCE_AFTER_MS = 2_000;

function announceAfterEventOutages(runtime: DistributedRuntime, engines: readonly MockerEngine[]): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const stop = runtime.planes.subscribe(({ plane, up }) => {
    if (plane !== 'events' || !up || engines.length === 0) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      for (const engine of engines) engine.announceKvCache();
    }, ANNOUNCE_AFTER_MS);
    timers.add(timer);
  });
  return () => {
    stop();
    for (const timer of timers) clearTimeout(timer);
  };
}
