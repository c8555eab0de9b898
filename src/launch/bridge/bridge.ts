// Bridged upstreams as instances of a model. Each OpenAI-compatible server gets an instance of its
// own (a sibling runtime: its own lease and instance id) while its health probe passes: the card
// and endpoint are registered when it comes up and withdrawn when it goes down, so routers only see
// healthy upstreams. `worker openai` runs one model's bridges; the frontend runs those of its
// --upstream-config file the same way, on its own runtime.
import { OpenAiBridgeEngine, UpstreamHealth, type BridgeTokenizer } from '../../engines/openai-bridge/index.js';
import type { EndpointId, ModelDeploymentCard } from '../../models/index.js';
import type { Logger } from '../../observability/index.js';
import { HfTokenizer } from '../../pipeline/index.js';
import { announceKvEvents, engineHandler, kvEventPublisher, type DistributedRuntime, type Endpoint } from '../../runtime/index.js';
import { workerCardJson } from '../mocker/index.js';
import { relayVllmKvEvents, type KvEventRelay } from './bridge-kv-events.js';
import type { UpstreamSpec } from './bridge-upstreams.js';

export interface BridgeModel {
  card: ModelDeploymentCard;
  endpoint: EndpointId;
  /** The model name the upstreams know. */
  upstreamModel: string;
  /** Added to the card's runtime_config (parsers). */
  runtimeConfig: Record<string, unknown>;
  /** The router_config the worker set declares in its card; absent: none (the frontend's settings apply). */
  routerConfig?: Record<string, unknown> | null;
  responseTimeoutMs: number;
  healthIntervalMs: number;
}

export interface BridgedUpstream {
  readonly spec: UpstreamSpec;
  readonly engine: OpenAiBridgeEngine;
  /** The instance id while registered; null while the upstream is down. */
  readonly instanceId: bigint | null;
  stop(): Promise<void>;
}

/** The model's tokenizer for the engines: re-tokenizing text answers, and the prompt text of text-in completions. */
export function bridgeTokenizer(card: ModelDeploymentCard): BridgeTokenizer {
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  return { encode: (text) => tokenizer.encode(text, false), encodeNow: (text) => tokenizer.encodeNow(text, false), decode: (ids) => tokenizer.decode([...ids], false) };
}

/** Starts one upstream's bridge: probes it now, registers it if healthy, and keeps probing. */
export async function startBridgedUpstream(
  model: BridgeModel,
  spec: UpstreamSpec,
  root: DistributedRuntime,
  tokenizer: BridgeTokenizer,
  logger: Logger,
): Promise<BridgedUpstream> {
  const headers: Record<string, string> = spec.apiKey ? { authorization: `Bearer ${spec.apiKey}` } : {};
  const engine = new OpenAiBridgeEngine({
    url: spec.url,
    model: model.upstreamModel,
    input: spec.input,
    tokenizer,
    headers,
    responseTimeoutMs: model.responseTimeoutMs,
  });
  const { namespace, component, endpoint } = model.endpoint;
  const card: ModelDeploymentCard = { ...model.card, modelInput: spec.input === 'text' ? 'Text' : 'Tokens' };
  // Without an event publisher the frontend routes this model approximately (see models/assembly/remote-card.ts).
  const cardJson = workerCardJson(card, { ...model.runtimeConfig, kv_events: spec.kvEvents !== undefined }, model.routerConfig ?? null);
  let runtime: DistributedRuntime | null = null;
  let relay: KvEventRelay | null = null;
  const log = { upstream: engine.baseUrl, model: card.displayName };

  const up = async (): Promise<void> => {
    const rt = await root.sibling();
    const ep: Endpoint = rt.namespace(namespace).component(component).endpoint(endpoint);
    await ep.registerModel(cardJson, { modelType: card.modelType, modelInput: card.modelInput });
    if (spec.kvEvents) {
      await announceKvEvents(rt.events, namespace, component);
      relay = relayVllmKvEvents(spec.kvEvents, card.kvCacheBlockSize, kvEventPublisher(rt.events, namespace, component, rt.instanceId), logger);
    }
    await ep.serveEndpoint(engineHandler(engine));
    runtime = rt;
    logger.info({ ...log, instance: rt.instanceIdHex, kvEvents: spec.kvEvents ?? null }, 'upstream registered');
  };
  const down = async (): Promise<void> => {
    relay?.close();
    relay = null;
    const rt = runtime;
    runtime = null;
    await rt?.shutdown();
  };

  const health = new UpstreamHealth({
    baseUrl: engine.baseUrl,
    intervalMs: model.healthIntervalMs,
    timeoutMs: Math.max(2000, model.healthIntervalMs),
    headers,
    onChange: async (healthy, reason) => {
      if (healthy) {
        await up().catch((err: Error) => logger.error({ ...log, err: err.message }, 'cannot register upstream'));
      } else {
        logger.warn({ ...log, reason }, runtime ? 'upstream unhealthy: withdrawn from discovery' : 'upstream not healthy yet');
        await down();
      }
    },
  });
  await health.start();
  return {
    spec,
    engine,
    get instanceId() {
      return (runtime as DistributedRuntime | null)?.instanceId ?? null;
    },
    async stop() {
      health.stop();
      await down();
    },
  };
}
