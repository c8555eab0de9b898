// Discovery → live models (reference/http.md §6.4): watches model cards (`v1/mdc/`) and endpoint
// instances (`v1/instances/`) in the frontend's namespace scope. A model appears with its first
// card and leaves with its last; its router holds the instances that have both a card and a live
// endpoint record, so an instance whose lease ends leaves routing at once. Tensor models (model type
// TensorBased) go to the KServe gRPC frontend's tensor registry instead of the ModelManager. A card
// whose files fail their BLAKE3 check is rejected. Workers' load reports (`kv_metrics`) feed each
// instance's capacity, which busy detection reads. One InstanceHealth, shared by every router the
// watcher builds, takes a lost instance out of routing at once; it comes back when discovery
// registers it again or a probe of its transport succeeds.
import type { Config } from '../config/index.js';
import type { TensorEngine, TensorModel } from '../protocols/index.js';
import { loadModelCard, tensorModelConfigFromCard, type ModelManager, type ServedModel } from '../models/index.js';
import { moduleLogger, type Logger } from '../observability/index.js';
import { cardWorkerType, type RouterEvent } from '../protocols/index.js';
import { INDEXER_QUERY_ENDPOINT, InstanceHealth, startSessionAffinitySync, TensorRouter, WorkerLoads, type HealthChange, type PolicyProvides, type PushRouter, type RouterSnapshots, type WorkerInstance } from '../router/index.js';
import {
  decodeEndpointInstance,
  decodeModelRecord,
  endpointPath,
  INSTANCES_BUCKET,
  MODELS_BUCKET,
  RemoteEngineClient,
  RemoteMediaClient,
  RemoteTensorClient,
  componentScope,
  randomInstanceId,
  subscribeKvEvents,
  subscribeLoadMetrics,
  verifyFileChecksums,
  watchRecords,
  type DiscoveryBackend,
  type EndpointInstance,
  type EventPlane,
  type ModelRecord,
  type NamespaceScope,
  type RequestPlaneClient,
} from '../runtime/index.js';
import { cardDpRanks, cardFromCardJson, cardParsers, cardPublishesKvEvents, cardWorkerTotals } from './remote-card.js';
import { buildRouter, lostWorkerOptions } from './router-options.js';
import type { RouterStateFactory } from './router-state.js';
import { assembleServedModel } from './served-model.js';
import type { ServedIndexers } from './served-indexers.js';
import { RemoteIndexer } from './remote-indexer.js';
import { PreprocessPool } from '../pipeline/index.js';

/** Where discovered tensor models go: the running KServe gRPC frontend. */
export interface TensorModelSink {
  addTensorModel(model: TensorModel): void;
  removeTensorModel(name: string): boolean;
}

export interface ModelWatcherDeps {
  backend: DiscoveryBackend;
  requestClient: RequestPlaneClient;
  /** Where workers publish KV events; needed by `--router-mode kv`. */
  events: () => EventPlane;
  models: ModelManager;
  config: Config;
  logger: Logger;
  inScope: NamespaceScope;
  /** Where tensor models go (the KServe core of gRPC and Triton HTTP); absent: they are ignored. */
  tensorModels?: TensorModelSink;
  /** Router state snapshots (NATS event plane only). */
  routerState?: RouterStateFactory;
  /** With --serve-indexer: where kv-routed models' indexers are served to other routers. */
  indexers?: ServedIndexers;
  observer?: ModelWatcherObserver;
}

/** Told what becomes of discovered models (`serve` waits on it for its own). */
export interface ModelWatcherObserver {
  /** The model's instances were re-derived (it went live, or a worker came or left): `instances` are live now. */
  modelChanged?(name: string, instances: number): void;
  /** The model's card was rejected or cannot be served. */
  modelRejected?(name: string, err: Error): void;
}

/** One discovered model: an LLM served through the ModelManager, or a tensor model. */
interface LiveModel {
  served?: ServedModel;
  tensor?: TensorRouter;
  cardKeys: Set<string>;
  /** Ends the KV event subscription of a kv-routed model. */
  unsubscribe?: Promise<() => void>;
  /** Disaggregated serving: the router over the model's prefill workers, made with the first of them. */
  prefill?: { router: PushRouter; unsubscribe?: Promise<() => void> };
}

/** `ns/comp/ep/{id:x}`: joins a card to the endpoint instance it describes. */
function instanceRef(rec: { namespace: string; component: string; endpoint: string; instanceId: bigint }): string {
  return `${endpointPath(rec)}/${rec.instanceId.toString(16)}`;
}

function isTensorCard(cardJson: Record<string, unknown>): boolean {
  return typeof cardJson.model_type === 'string' && cardJson.model_type.split('|').some((t) => t.trim() === 'TensorBased');
}

/**
 * A tensor model's engine reports routing errors (no live instance) from inside its stream, which
 * the gRPC tensor run answers as a stream error, as it always has; the router throws them at call.
 */
function routingErrorsInStream(engine: TensorEngine): TensorEngine {
  return {
    async *generate(request, ctx) {
      yield* engine.generate(request, ctx);
    },
  };
}

interface InstanceClients {
  llm: RemoteEngineClient;
  tensor: RemoteTensorClient;
  media: RemoteMediaClient;
}

export class ModelWatcher {
  private readonly cards = new Map<string, { record: ModelRecord; name: string }>();
  private readonly instances = new Map<string, EndpointInstance>();
  private readonly clients = new Map<string, InstanceClients>();
  private readonly live = new Map<string, LiveModel>();
  /** Models whose first card is being checked (file checksums) before they go live. */
  private readonly preparing = new Set<string>();
  private readonly stops: (() => void)[] = [];
  private readonly loads = new WorkerLoads();
  /** Namespace → its load-report subscription, opened with its first LLM model. */
  private readonly loadSubscriptions = new Map<string, Promise<() => void>>();
  /** Which instances are down, for every router built here. */
  readonly health: InstanceHealth;
  /** `--dyn-preprocess-workers`: the threads every model built here preprocesses big prompts on. */
  private readonly preprocessPool: PreprocessPool | undefined;

  constructor(private readonly deps: ModelWatcherDeps) {
    this.health = new InstanceHealth({ probe: (id) => this.probe(id) });
    this.stops.push(this.health.subscribe((change) => this.onHealthChange(change)));
    const { dynPreprocessWorkers, preprocessMinChars } = deps.config;
    this.preprocessPool = dynPreprocessWorkers > 0 ? new PreprocessPool(dynPreprocessWorkers, preprocessMinChars) : undefined;
  }

  async start(): Promise<void> {
    const { backend, inScope, logger } = this.deps;
    this.stops.push(
      await watchRecords(backend, `${INSTANCES_BUCKET}/`, decodeEndpointInstance, {
        onPut: (_key, inst) => {
          if (!inScope(inst.namespace)) return;
          const ref = instanceRef(inst);
          this.instances.set(ref, inst);
          // A registration (new, renewed after a restart of etcd or of the worker) brings a down instance back.
          this.health.markUp(inst.instanceId, 'registered again');
          const { requestClient } = this.deps;
          this.clients.set(ref, {
            llm: new RemoteEngineClient(requestClient, inst, logger),
            tensor: new RemoteTensorClient(requestClient, inst, logger),
            media: new RemoteMediaClient(requestClient, inst, logger),
          });
          this.refreshFor(ref);
        },
        onDelete: (key) => {
          const ref = key.slice(INSTANCES_BUCKET.length + 1);
          const inst = this.instances.get(ref);
          if (!inst) return;
          this.instances.delete(ref);
          this.loads.forget(inst.instanceId);
          this.health.forget(inst.instanceId);
          this.clients.delete(ref);
          logger.info({ instance: ref }, 'worker instance left');
          this.refreshFor(ref);
        },
        onInvalid: (key) => logger.warn({ key }, 'ignoring a discovery value that is not an endpoint instance'),
      }),
    );
    this.stops.push(
      await watchRecords(backend, `${MODELS_BUCKET}/`, decodeModelRecord, {
        onPut: (key, record) => {
          if (inScope(record.namespace)) this.addCard(key, record);
        },
        onDelete: (key) => this.removeCard(key),
        onInvalid: (key) => logger.warn({ key }, 'ignoring a discovery value that is not a model card'),
      }),
    );
  }

  /** Stops watching; resolves once the preprocessing threads have ended. */
  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    this.health.close();
    for (const name of this.live.keys()) if (this.live.get(name)!.tensor) this.deps.tensorModels?.removeTensorModel(name);
    for (const model of this.live.values()) {
      for (const sub of [model.unsubscribe, model.prefill?.unsubscribe]) void sub?.then((off) => off()).catch(() => undefined);
    }
    for (const sub of this.loadSubscriptions.values()) void sub.then((off) => off()).catch(() => undefined);
    this.loadSubscriptions.clear();
    await this.preprocessPool?.close();
  }

  private addCard(key: string, record: ModelRecord): void {
    const servedName = this.deps.config.modelName ?? (record.cardJson.display_name as string | undefined);
    if (!servedName) {
      this.deps.logger.warn({ key }, 'model card without display_name ignored');
      return;
    }
    this.cards.set(key, { record, name: servedName });
    const model = this.live.get(servedName);
    if (model) {
      model.cardKeys.add(key);
      this.refresh(servedName);
    } else if (!this.preparing.has(servedName) && !isPrefillCard(record)) {
      // A prefill card serves no API of its own: its model goes live with a decode (or aggregated) card.
      this.prepare(key, record, servedName);
    }
  }

  /** Checks a model's first card, then brings the model live with every card that names it by then. */
  private prepare(key: string, record: ModelRecord, servedName: string): void {
    this.preparing.add(servedName);
    void this.checkFiles(record, servedName).then((ok) => {
      this.preparing.delete(servedName);
      const keys = [...this.cards].filter(([, c]) => c.name === servedName).map(([k]) => k);
      if (!ok) {
        this.cards.delete(key);
        const other = keys.find((k) => k !== key && !isPrefillCard(this.cards.get(k)!.record));
        if (other) this.prepare(other, this.cards.get(other)!.record, servedName);
        return;
      }
      if (keys.length === 0) return;
      const model = this.goLive(record, servedName);
      if (!model) return;
      for (const k of keys) model.cardKeys.add(k);
      this.refresh(servedName);
    });
  }

  /** False (and an error log) when the card's files do not match their checksums. */
  private async checkFiles(record: ModelRecord, servedName: string): Promise<boolean> {
    // --model-path: the frontend reads its own copy, not the files the card names.
    if (this.deps.config.modelPath) return true;
    try {
      await verifyFileChecksums(record.cardJson);
      return true;
    } catch (err) {
      this.deps.logger.error(
        { model: servedName, namespace: record.namespace, instance: record.instanceId.toString(16), err: (err as Error).message },
        'model card rejected: its files do not match the checksums it carries',
      );
      this.deps.observer?.modelRejected?.(servedName, err as Error);
      return false;
    }
  }

  private goLive(record: ModelRecord, servedName: string): LiveModel | null {
    const { logger } = this.deps;
    let model: LiveModel;
    if (isTensorCard(record.cardJson)) {
      const sink = this.deps.tensorModels;
      if (!sink) {
        logger.warn({ model: servedName }, 'tensor model ignored: this frontend serves no KServe protocol');
        return null;
      }
      const tensor = new TensorRouter(servedName, lostWorkerOptions(this.deps.config, this.health));
      sink.addTensorModel({ name: servedName, engine: routingErrorsInStream(tensor), config: tensorModelConfigFromCard(record.cardJson) });
      model = { tensor, cardKeys: new Set() };
    } else {
      const built = this.buildModel(record, servedName);
      if (!built) return null;
      const { served, provides } = built;
      model = {
        served,
        cardKeys: new Set(),
        unsubscribe: allStops([this.feedKvEvents(served, provides, record), this.shareSessions(served, record), this.serveIndexer(served, provides, record)]),
      };
      this.watchLoads(record.namespace);
      this.deps.models.add(served);
    }
    this.live.set(servedName, model);
    logger.info({ model: servedName, namespace: record.namespace, tensor: model.tensor !== undefined }, 'model discovered');
    return model;
  }

  private removeCard(key: string): void {
    const card = this.cards.get(key);
    if (!card) return;
    this.cards.delete(key);
    const model = this.live.get(card.name);
    if (!model) return;
    model.cardKeys.delete(key);
    if (model.cardKeys.size > 0) {
      this.refresh(card.name);
      return;
    }
    this.live.delete(card.name);
    void model.unsubscribe?.then((off) => off()).catch(() => undefined);
    void model.prefill?.unsubscribe?.then((off) => off()).catch(() => undefined);
    model.prefill?.router.setInstances([]);
    if (model.served) {
      model.served.router.setInstances([]);
      for (const router of Object.values(model.served.media)) router.setInstances([]);
      this.deps.models.remove(card.name);
    }
    if (model.tensor) {
      model.tensor.setInstances([]);
      this.deps.tensorModels?.removeTensorModel(card.name);
    }
    this.deps.logger.info({ model: card.name }, 'model removed: its last worker left');
  }

  private buildModel(record: ModelRecord, servedName: string): { served: ServedModel; provides: PolicyProvides } | null {
    const { config, logger } = this.deps;
    try {
      // --model-path: the tokenizer files are local to the frontend, not where the worker says.
      const card = config.modelPath
        ? loadModelCard(config.modelPath, {
            displayName: servedName,
            kvCacheBlockSize: record.cardJson.kv_cache_block_size as number | undefined,
            migrationLimit: Number.isInteger(record.cardJson.migration_limit) ? (record.cardJson.migration_limit as number) : undefined,
          })
        : cardFromCardJson(record.cardJson, servedName);
      const parsers = cardParsers(record.cardJson, ({ field, name, known }) =>
        logger.warn(
          { model: servedName, [field]: name, known },
          `model ${servedName}: unknown ${field} '${name}' in its card; serving it without that parser (known: ${known.join(', ')})`,
        ),
      );
      // Workers that say they publish no KV events (bridged engines without --kv-events-endpoint)
      // get approximate KV routing: the router predicts the cache from its own decisions.
      const events = cardPublishesKvEvents(record.cardJson) ? config : { ...config, routerKvEvents: false };
      // Decode workers get handed-over prompts: the decode hop routes on load alone (upstream's decode override).
      const routing = cardWorkerType(record.cardJson) === 'decode' ? { ...events, ...DECODE_ROUTING } : events;
      const routerLogger = moduleLogger(logger, 'router');
      const remoteIndexer = config.useRemoteIndexer ? this.remoteIndexer(record, servedName, routerLogger) : undefined;
      return assembleServedModel(card, routing, record, parsers, { logger: routerLogger, health: this.health, remoteIndexer }, this.preprocessPool);
    } catch (err) {
      logger.error({ model: servedName, err: (err as Error).message }, 'cannot serve discovered model');
      this.deps.observer?.modelRejected?.(servedName, err as Error);
      return null;
    }
  }

  /** A policy that takes KV events learns from its workers' events on the event plane (those of `record`'s component). */
  private feedKvEvents(served: Pick<ServedModel, 'name'>, provides: PolicyProvides, record: ModelRecord): Promise<() => void> | undefined {
    const kv = provides.kvEvents;
    if (!kv) return undefined;
    const { logger } = this.deps;
    // Live events are applied on top of the saved router state: those that arrive while it loads
    // wait for it (undefined: still loading; null: no snapshots).
    const starting = this.deps.routerState?.(kv, record.namespace, record.component);
    let saver: RouterSnapshots | null | undefined = starting ? undefined : null;
    const early: RouterEvent[] = [];
    const apply = (e: RouterEvent): void => {
      kv.applyKvEvent(e.worker_id, e.event, e.storage_tier);
      saver?.eventApplied();
    };
    void starting?.then((s) => {
      saver = s;
      for (const e of early.splice(0)) apply(e);
    });
    // A router that applies no events (approximate mode, a remote indexer) needs none of them.
    const subscription = !kv.appliesEvents ? Promise.resolve(() => undefined) : subscribeKvEvents(
      this.deps.events(),
      record.namespace,
      record.component,
      (e) => (saver === undefined ? void early.push(e) : apply(e)),
      (err) => logger.warn({ err: err.message }, 'undecodable KV event'),
    );
    subscription.catch((err: Error) => logger.error({ model: served.name, err: err.message }, 'cannot subscribe to KV events'));
    const replicas = provides.replicas;
    if (!this.deps.config.routerReplicaSync || !replicas) return subscription;
    const scope = componentScope(record.namespace, record.component);
    const sync = replicas.startReplicaSync(this.deps.events(), scope, randomInstanceId());
    sync.catch((err: Error) => logger.error({ model: served.name, err: err.message }, 'cannot start router replica sync'));
    return Promise.all([subscription, sync]).then(([off, stopSync]) => () => {
      off();
      stopSync();
    });
  }

  /** With --router-replica-sync, the router's session bindings are shared with the other replicas. */
  private shareSessions(served: ServedModel, record: ModelRecord): Promise<() => void> | undefined {
    const affinity = served.router.affinity;
    if (!affinity || !this.deps.config.routerReplicaSync) return undefined;
    const sync = startSessionAffinitySync(this.deps.events(), affinity, {
      scope: componentScope(record.namespace, record.component),
      routerId: randomInstanceId(),
      knows: (worker) => served.router.instanceIds.includes(worker),
    });
    sync.catch((err: Error) => this.deps.logger.error({ model: served.name, err: err.message }, 'cannot share session affinity with router replicas'));
    return sync;
  }

  /** With --serve-indexer, a kv-routed model's indexer answers other routers. */
  private serveIndexer(served: ServedModel, provides: PolicyProvides, record: ModelRecord): Promise<() => void> | undefined {
    const kv = provides.kvEvents;
    if (!kv || !this.deps.indexers) return undefined;
    const serving = this.deps.indexers.add(record.namespace, record.component, served.name, kv);
    serving.catch((err: Error) => this.deps.logger.error({ model: served.name, err: err.message }, 'cannot serve the KV indexer'));
    return serving;
  }

  /** With --use-remote-indexer: the indexer served on the model's worker component, asked per request. */
  private remoteIndexer(record: ModelRecord, model: string, logger: Logger): RemoteIndexer {
    const served = (inst: EndpointInstance): boolean =>
      inst.endpoint === INDEXER_QUERY_ENDPOINT && inst.namespace === record.namespace && inst.component === record.component;
    const instances = (): EndpointInstance[] => [...this.instances.values()].filter(served);
    return new RemoteIndexer({ model, instances, client: this.deps.requestClient, logger });
  }

  /** Load reports are per namespace: one subscription serves every model in it. */
  private watchLoads(namespace: string): void {
    if (this.loadSubscriptions.has(namespace)) return;
    const { logger } = this.deps;
    const subscription = subscribeLoadMetrics(
      this.deps.events(),
      namespace,
      (load) => this.loads.apply(load),
      (err) => logger.warn({ err: err.message }, 'undecodable load report'),
    );
    subscription.catch((err: Error) => logger.error({ namespace, err: err.message }, 'cannot subscribe to worker load reports'));
    this.loadSubscriptions.set(namespace, subscription);
  }

  /** A down worker's load reports no longer count: it must never look least loaded. */
  private onHealthChange({ id, down, reason }: HealthChange): void {
    const { logger } = this.deps;
    if (down) {
      this.loads.forget(id);
      logger.warn({ instance: id.toString(16), reason }, 'worker instance marked down: it leaves routing until it is back');
    } else {
      logger.info({ instance: id.toString(16), reason }, 'worker instance back in routing');
    }
  }

  /** A down instance is reachable again when a cheap connect to its transport succeeds. */
  private async probe(id: bigint): Promise<boolean> {
    for (const inst of this.instances.values()) if (inst.instanceId === id) return this.deps.requestClient.probe(inst);
    return false;
  }

  /** Re-derives the instances of every model with a card for `ref`. */
  private refreshFor(ref: string): void {
    const names = new Set<string>();
    for (const { record, name } of this.cards.values()) if (instanceRef(record) === ref) names.add(name);
    for (const name of names) this.refresh(name);
  }

  private refresh(name: string): void {
    const model = this.live.get(name);
    if (!model) return;
    const byId = new Map<bigint, { inst: EndpointInstance; clients: InstanceClients; record: ModelRecord }>();
    const prefillById = new Map<bigint, { inst: EndpointInstance; clients: InstanceClients; record: ModelRecord }>();
    for (const key of model.cardKeys) {
      const { record } = this.cards.get(key)!;
      const ref = instanceRef(record);
      const inst = this.instances.get(ref);
      const clients = this.clients.get(ref);
      if (inst && clients) (model.served && isPrefillCard(record) ? prefillById : byId).set(inst.instanceId, { inst, clients, record });
    }
    const live = [...byId.values()];
    const toWorker = ({ inst, clients, record }: { inst: EndpointInstance; clients: InstanceClients; record: ModelRecord }): WorkerInstance => ({
      id: inst.instanceId,
      client: clients.llm,
      deviceType: inst.deviceType,
      capacity: this.loads.capacityOf(inst.instanceId, cardWorkerTotals(record.cardJson)),
      dpRanks: cardDpRanks(record.cardJson),
    });
    model.served?.router.setInstances(live.map(toWorker));
    if (model.served) {
      const media = live.map(({ inst, clients }) => ({ id: inst.instanceId, client: clients.media }));
      for (const router of Object.values(model.served.media)) router.setInstances(media);
      const prefill = [...prefillById.values()];
      if (prefill.length > 0 && !model.prefill) model.prefill = this.buildPrefillRouter(model.served, prefill[0]!.record);
      model.prefill?.router.setInstances(prefill.map(toWorker));
      const decodeNeedsPrefill = live.some(({ record }) => cardWorkerType(record.cardJson) === 'decode');
      model.served.router.disaggregation.setPools(model.prefill?.router ?? null, decodeNeedsPrefill);
    }
    model.tensor?.setInstances(live.map(({ inst, clients }) => ({ id: inst.instanceId, client: clients.tensor })));
    this.deps.observer?.modelChanged?.(name, live.length);
  }

  /**
   * The prefill pool's router, from the frontend's router flags and the first prefill card (its
   * block size): it routes KV-aware on the prefill workers' own KV events, without tracking
   * active blocks (upstream forces that off for the prefill hop).
   */
  private buildPrefillRouter(served: ServedModel, record: ModelRecord): NonNullable<LiveModel['prefill']> {
    const { config, logger } = this.deps;
    const blockSize = Number.isInteger(record.cardJson.kv_cache_block_size) ? (record.cardJson.kv_cache_block_size as number) : served.card.kvCacheBlockSize;
    const routing = { ...config, routerTrackActiveBlocks: false, ...(cardPublishesKvEvents(record.cardJson) ? {} : { routerKvEvents: false }) };
    const { router, provides } = buildRouter(routing, { ...served.card, kvCacheBlockSize: blockSize }, { logger: moduleLogger(logger, 'router'), health: this.health });
    logger.info({ model: served.name, component: record.component }, 'prefill workers discovered: serving disaggregated');
    return { router, unsubscribe: this.feedKvEvents(served, provides, record) };
  }
}

/** How the decode hop routes (upstream's decode `router_config_override`): no overlap credit, no KV reuse, no prompt-token charge. */
const DECODE_ROUTING = { routerKvOverlapScoreCredit: 0, routerAssumeKvReuse: false, routerTrackPrefillTokens: false } as const;

function isPrefillCard(record: ModelRecord): boolean {
  return cardWorkerType(record.cardJson) === 'prefill';
}

/** One stop for several started subscriptions (absent ones skipped). */
function allStops(started: readonly (Promise<() => void> | undefined)[]): Promise<() => void> | undefined {
  const present = started.filter((s) => s !== undefined);
  if (present.length === 0) return undefined;
  return Promise.all(present).then((stops) => () => {
    for (const stop of stops) stop();
  });
}
