// A discovered model while it is live, of the kind its card says: an LLM served through the
// ModelManager (its router, media routers, prefill pool and what they take from outside), or a
// tensor model registered with the KServe core.
import { moduleLogger, type Logger } from '../observability/index.js';
import type { PreprocessPool } from '../pipeline/index.js';
import { cardWorkerType, type ModelDeploymentCard } from '../protocols/index.js';
import { INDEXER_QUERY_ENDPOINT, type InstanceHealth, type PushRouter, type WorkerInstance, type WorkerLiveness } from '../router/index.js';
import type { EndpointInstance, ModelRecord, RequestPlaneClient } from '../runtime/index.js';
import {
  assembleModel,
  assembleTensorModel,
  buildModelRouter,
  cardDpRanks,
  cardRouterSettings,
  cardParsers,
  cardStructuralTag,
  cardStructuralTagOptions,
  cardPublishesKvEvents,
  cardWorkerTotals,
  isTensorCard,
  prepareTokenTables,
  servedCard,
  type AssembledModel,
  type ModelSettings,
  type RouterSettings,
  type TensorModelSink,
} from './assembly/index.js';
import { isPrefillCard, type JoinedInstance } from './discovery-join.js';
import type { ModelManager } from './model-manager.js';
import { RemoteIndexer, type LoadReports, type PolicyWiring, type Wired } from './wiring/index.js';

export interface LiveModel {
  /** Its joined instances were re-derived; returns how many serve it now. */
  update(joined: readonly JoinedInstance[]): number;
  /** Its last card left: it leaves routing and the registry it was served from. */
  remove(): void;
  /** The watcher stops: what it started for the model ends. */
  stop(): void;
}

/** What a live model is made with: the watcher's settings and its parts shared by every model. */
export interface LiveModelContext {
  readonly settings: ModelSettings;
  /** `--model-path`: the frontend's own copy of the model's files, read instead of the card's. */
  readonly localModelPath?: string;
  /** `--use-remote-indexer`: kv policies ask the indexer served on their workers' component. */
  readonly useRemoteIndexer: boolean;
  readonly models: ModelManager;
  readonly tensorModels?: TensorModelSink;
  readonly health: InstanceHealth;
  /** Silent LLM workers are pinged and failed over (null: off). */
  readonly liveness: WorkerLiveness | null;
  readonly loads: LoadReports;
  readonly wiring: PolicyWiring;
  readonly logger: Logger;
  readonly pool?: PreprocessPool;
  readonly requestClient: RequestPlaneClient;
  /** Every endpoint instance in scope now. */
  readonly endpointInstances: () => readonly EndpointInstance[];
  /** The model cannot be served. */
  readonly rejected: (name: string, err: Error) => void;
}

export type ModelKind = 'llm' | 'tensor';

interface Kind {
  /** Builds off the event loop what `live` will need; resolves to what lets it go after. */
  prepare(name: string, record: ModelRecord, ctx: LiveModelContext): Promise<() => void>;
  live(name: string, record: ModelRecord, ctx: LiveModelContext): LiveModel | null;
}

const NOTHING_TO_PREPARE = (): Promise<() => void> => Promise.resolve(() => undefined);

const KINDS: { readonly [K in ModelKind]: Kind } = {
  llm: { prepare: prepareServedModel, live: (name, record, ctx) => ServedLiveModel.create(name, record, ctx) },
  tensor: { prepare: NOTHING_TO_PREPARE, live: liveTensorModel },
};

/** The card `prepare` read, for `create` of the same record (with --model-path, a read of local files). */
const preparedCards = new WeakMap<ModelRecord, ModelDeploymentCard>();

/**
 * The model's token tables and tokenizer tables, built on a thread (about a second of CPU for a
 * 150k vocabulary). A card that cannot be read prepares nothing: `create` reports it.
 */
async function prepareServedModel(name: string, record: ModelRecord, ctx: LiveModelContext): Promise<() => void> {
  try {
    const card = servedCard(record.cardJson, name, ctx.localModelPath);
    preparedCards.set(record, card);
    return await prepareTokenTables(card.tokenizerJsonPath, card.files.tokenizerConfig?.path);
  } catch {
    return () => undefined;
  }
}

export function modelKind(record: ModelRecord): ModelKind {
  return isTensorCard(record.cardJson) ? 'tensor' : 'llm';
}

/** The model of `record`'s kind, live with no instances yet; null when it cannot be served. */
export function goLive(kind: ModelKind, name: string, record: ModelRecord, ctx: LiveModelContext): LiveModel | null {
  return KINDS[kind].live(name, record, ctx);
}

/** Before `goLive`: what it would build on the event loop, built off it; call the result after. */
export function prepareLive(kind: ModelKind, name: string, record: ModelRecord, ctx: LiveModelContext): Promise<() => void> {
  return KINDS[kind].prepare(name, record, ctx);
}

/** One entry per instance (the last card's), in the order of their first card. */
function byInstance(joined: readonly JoinedInstance[]): JoinedInstance[] {
  const byId = new Map<bigint, JoinedInstance>();
  for (const j of joined) byId.set(j.instance.instanceId, j);
  return [...byId.values()];
}

class ServedLiveModel implements LiveModel {
  /** Disaggregated serving: the router over the model's prefill workers, made with the first of them. */
  private prefill: { router: PushRouter; wired: Wired } | null = null;

  private constructor(
    private readonly model: AssembledModel,
    private readonly wired: Wired,
    private readonly ctx: LiveModelContext,
  ) {}

  static create(name: string, record: ModelRecord, ctx: LiveModelContext): LiveModel | null {
    const { logger } = ctx;
    let model: AssembledModel;
    try {
      const card = preparedCards.get(record) ?? servedCard(record.cardJson, name, ctx.localModelPath);
      preparedCards.delete(record);
      const parsers = cardParsers(record.cardJson, name);
      const structuralTag = cardStructuralTag(record.cardJson, name);
      const structuralTagOptions = cardStructuralTagOptions(record.cardJson);
      const routerLogger = moduleLogger(logger, 'router');
      const remoteIndexer = ctx.useRemoteIndexer ? remoteIndexerOf(record, name, routerLogger, ctx) : undefined;
      model = assembleModel(card, ctx.settings, record, {
        parsers,
        structuralTag,
        structuralTagOptions,
        workers: { role: cardWorkerType(record.cardJson), publishKvEvents: cardPublishesKvEvents(record.cardJson) },
        deps: { logger: routerLogger, health: ctx.health, liveness: ctx.liveness, remoteIndexer },
        pool: ctx.pool,
      });
    } catch (err) {
      logger.error({ model: name, err: (err as Error).message }, 'cannot serve discovered model');
      ctx.rejected(name, err as Error);
      return null;
    }
    const { served, provides } = model;
    const wired = ctx.wiring.model(name, served.router, provides, record);
    ctx.loads.watch(record.namespace);
    ctx.models.add(served);
    return new ServedLiveModel(model, wired, ctx);
  }

  update(joined: readonly JoinedInstance[]): number {
    const { served } = this.model;
    const workers = byInstance(joined.filter(({ record }) => !isPrefillCard(record)));
    const prefill = byInstance(joined.filter(({ record }) => isPrefillCard(record)));
    served.router.setInstances(workers.map((j) => this.worker(j)));
    const media = workers.map(({ instance, clients }) => ({ id: instance.instanceId, client: clients.media }));
    for (const router of Object.values(served.media)) router.setInstances(media);
    if (prefill.length > 0 && !this.prefill) this.prefill = this.prefillPool(prefill[0]!.record);
    this.prefill?.router.setInstances(prefill.map((j) => this.worker(j)));
    const decodeNeedsPrefill = workers.some(({ record }) => cardWorkerType(record.cardJson) === 'decode');
    served.router.disaggregation.setPools(this.prefill?.router ?? null, decodeNeedsPrefill);
    return workers.length;
  }

  remove(): void {
    this.stop();
    const { served } = this.model;
    this.prefill?.router.setInstances([]);
    served.router.setInstances([]);
    for (const router of Object.values(served.media)) router.setInstances([]);
    this.ctx.models.remove(served.name);
  }

  stop(): void {
    for (const wired of [this.wired, this.prefill?.wired]) void wired?.then((off) => off()).catch(() => undefined);
  }

  private worker({ instance, clients, record }: JoinedInstance): WorkerInstance {
    return {
      id: instance.instanceId,
      client: clients.llm,
      deviceType: instance.deviceType,
      capacity: this.ctx.loads.capacityOf(instance.instanceId, cardWorkerTotals(record.cardJson)),
      dpRanks: cardDpRanks(record.cardJson),
    };
  }

  /**
   * The prefill pool's router, from the frontend's router settings and the first prefill card (its
   * block size), in the prefill role: it routes KV-aware on the prefill workers' own KV events.
   */
  private prefillPool(record: ModelRecord): NonNullable<ServedLiveModel['prefill']> {
    const { served } = this.model;
    const { logger, health, liveness } = this.ctx;
    const blockSize = Number.isInteger(record.cardJson.kv_cache_block_size) ? (record.cardJson.kv_cache_block_size as number) : served.card.kvCacheBlockSize;
    const settings = prefillSettings(record, this.ctx.settings.router, served.name, logger);
    const { router, provides } = buildModelRouter(
      settings,
      { ...served.card, kvCacheBlockSize: blockSize },
      { role: 'prefill', publishKvEvents: cardPublishesKvEvents(record.cardJson) },
      { logger: moduleLogger(logger, 'router'), health, liveness },
    );
    logger.info({ model: served.name, component: record.component, router_mode: settings.mode }, 'prefill workers discovered: serving disaggregated');
    return { router, wired: this.ctx.wiring.prefill(served.name, provides, record) };
  }
}

/**
 * The prefill hop's router settings: the prefill card's own `router_config` when it declares one
 * (upstream's per-role router config), else the frontend's. One dynamo-ts cannot apply is logged
 * as an error and the frontend's settings route the hop.
 */
function prefillSettings(record: ModelRecord, frontend: RouterSettings, model: string, logger: Logger): RouterSettings {
  try {
    return cardRouterSettings(record.cardJson, frontend);
  } catch (err) {
    logger.error({ model, component: record.component, err: (err as Error).message }, 'the prefill workers declare a router_config dynamo-ts cannot apply: routing them with the frontend settings');
    return frontend;
  }
}

function liveTensorModel(name: string, record: ModelRecord, ctx: LiveModelContext): LiveModel | null {
  const sink = ctx.tensorModels;
  if (!sink) {
    ctx.logger.warn({ model: name }, 'tensor model ignored: this frontend serves no KServe protocol');
    return null;
  }
  const { router, model } = assembleTensorModel(name, record.cardJson, ctx.settings.router, ctx.health);
  sink.addTensorModel(model);
  return {
    update(joined) {
      const workers = byInstance(joined);
      router.setInstances(workers.map(({ instance, clients }) => ({ id: instance.instanceId, client: clients.tensor })));
      return workers.length;
    },
    remove() {
      router.setInstances([]);
      sink.removeTensorModel(name);
    },
    stop() {
      sink.removeTensorModel(name);
    },
  };
}

/** With --use-remote-indexer: the indexer served on the model's worker component, asked per request. */
function remoteIndexerOf(record: ModelRecord, model: string, logger: Logger, ctx: LiveModelContext): RemoteIndexer {
  const serving = (inst: EndpointInstance): boolean =>
    inst.endpoint === INDEXER_QUERY_ENDPOINT && inst.namespace === record.namespace && inst.component === record.component;
  return new RemoteIndexer({ model, instances: () => ctx.endpointInstances().filter(serving), client: ctx.requestClient, logger });
}
