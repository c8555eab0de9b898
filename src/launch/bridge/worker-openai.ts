// `dynamo-ts worker openai`: OpenAI-compatible servers as workers of one model. Each --upstream is
// an instance; the frontend routes to them over the ordinary request plane.
import type { Config } from '../../config/index.js';
import { moduleLogger, type Logger } from '../../observability/index.js';
import { DistributedRuntime } from '../../runtime/index.js';
import { runtimeOptionsFromConfig } from '../runtime-options.js';
import { loadConfiguredCard, parseEndpoint, workerParsers } from '../served-model.js';
import { bridgeTokenizer, startBridgedUpstream, type BridgedUpstream, type BridgeModel } from './bridge.js';
import { upstreamsFromFlags, type UpstreamSpec } from './bridge-upstreams.js';

/** vLLM's default KV block size: the router's blocks must match the engine's for KV events. */
export const VLLM_BLOCK_SIZE = 16;

export interface RunningBridgeWorker {
  readonly model: BridgeModel;
  readonly upstreams: readonly BridgedUpstream[];
  stop(): Promise<void>;
}

/**
 * The model of the worker flags: the card of --model-path or --model-name, the endpoint and the
 * upstream settings. Structural tags are on unless turned off, as for upstream's engine workers.
 */
export function bridgeModelFromConfig(config: Config, warn: (message: string) => void = () => {}): BridgeModel {
  const card = loadConfiguredCard(config, config.kvCacheBlockSize ?? VLLM_BLOCK_SIZE);
  return {
    card,
    endpoint: parseEndpoint(config.endpoint ?? `dyn://${config.namespace || 'dynamo'}.backend.generate`),
    upstreamModel: config.upstreamModel ?? card.displayName,
    runtimeConfig: workerParsers(config, true, warn),
    responseTimeoutMs: config.upstreamTimeout * 1000,
    healthIntervalMs: config.upstreamHealthInterval * 1000,
  };
}

/** `routerConfig`: the router_config the worker set declares in its card (launch/worker-router-config.ts); null: none. */
export async function startOpenAiWorker(config: Config, root: Logger, routerConfig: Record<string, unknown> | null = null): Promise<RunningBridgeWorker> {
  const specs = upstreamsFromFlags(config);
  const logger = moduleLogger(root, 'bridge');
  const model = { ...bridgeModelFromConfig(config, (message) => logger.warn({}, message)), routerConfig };
  const onLeaseLost = (): void => {
    logger.error({}, 'discovery lease lost: exiting so a supervisor can restart this worker');
    process.exit(1);
  };
  // Holds the connections while every upstream is down; the upstreams are its siblings.
  const runtime = await DistributedRuntime.create(runtimeOptionsFromConfig(config, logger, onLeaseLost));
  return runBridgeWorker(model, specs, runtime, logger);
}

/** The bridges of `specs` over `runtime`'s connections; stopping them also shuts `runtime` down. */
export async function runBridgeWorker(model: BridgeModel, specs: readonly UpstreamSpec[], runtime: DistributedRuntime, logger: Logger): Promise<RunningBridgeWorker> {
  const tokenizer = bridgeTokenizer(model.card);
  const upstreams: BridgedUpstream[] = [];
  for (const spec of specs) upstreams.push(await startBridgedUpstream(model, spec, runtime, tokenizer, logger));
  logger.info({ model: model.card.displayName, upstreams: specs.map((s) => s.url), input: specs[0]?.input }, 'dynamo-ts worker openai started');
  return {
    model,
    upstreams,
    async stop() {
      for (const u of upstreams) await u.stop();
      await runtime.shutdown();
    },
  };
}
