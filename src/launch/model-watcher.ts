// Discovery → live models (reference/http.md §6.4): watches model cards (`v1/mdc/`) and endpoint
// instances (`v1/instances/`) in the frontend's namespace scope. A model appears with its first
// card and leaves with its last; its router holds the instances that have both a card and a live
// endpoint record, so an instance whose lease ends leaves routing at once.
import type { Config } from '../config/index.js';
import { loadModelCard, type ModelManager, type ServedModel } from '../models/index.js';
import type { Logger } from '../observability/index.js';
import { KvRouterPolicy, type WorkerInstance } from '../router/index.js';
import {
  decodeEndpointInstance,
  decodeModelRecord,
  endpointPath,
  INSTANCES_BUCKET,
  MODELS_BUCKET,
  RemoteEngineClient,
  subscribeKvEvents,
  watchRecords,
  type DiscoveryBackend,
  type EndpointInstance,
  type EventPlane,
  type ModelRecord,
  type NamespaceScope,
  type RequestPlaneClient,
} from '../runtime/index.js';
import { cardFromCardJson } from './remote-card.js';
import { buildServedModel } from './served-model.js';

export interface ModelWatcherDeps {
  backend: DiscoveryBackend;
  requestClient: RequestPlaneClient;
  /** Where workers publish KV events; needed by `--router-mode kv`. */
  events: () => EventPlane;
  models: ModelManager;
  config: Config;
  logger: Logger;
  inScope: NamespaceScope;
}

interface LiveModel {
  served: ServedModel;
  cardKeys: Set<string>;
  /** Ends the KV event subscription of a kv-routed model. */
  unsubscribe?: Promise<() => void>;
}

/** `ns/comp/ep/{id:x}`: joins a card to the endpoint instance it describes. */
function instanceRef(rec: { namespace: string; component: string; endpoint: string; instanceId: bigint }): string {
  return `${endpointPath(rec)}/${rec.instanceId.toString(16)}`;
}

export class ModelWatcher {
  private readonly cards = new Map<string, { record: ModelRecord; name: string }>();
  private readonly instances = new Map<string, EndpointInstance>();
  private readonly clients = new Map<string, RemoteEngineClient>();
  private readonly live = new Map<string, LiveModel>();
  private readonly stops: (() => void)[] = [];

  constructor(private readonly deps: ModelWatcherDeps) {}

  async start(): Promise<void> {
    const { backend, inScope, logger } = this.deps;
    this.stops.push(
      await watchRecords(backend, `${INSTANCES_BUCKET}/`, decodeEndpointInstance, {
        onPut: (_key, inst) => {
          if (!inScope(inst.namespace)) return;
          const ref = instanceRef(inst);
          this.instances.set(ref, inst);
          this.clients.set(ref, new RemoteEngineClient(this.deps.requestClient, inst));
          this.refreshFor(ref);
        },
        onDelete: (key) => {
          const ref = key.slice(INSTANCES_BUCKET.length + 1);
          if (!this.instances.delete(ref)) return;
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

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
    for (const model of this.live.values()) void model.unsubscribe?.then((off) => off()).catch(() => undefined);
  }

  private addCard(key: string, record: ModelRecord): void {
    const servedName = this.deps.config.modelName ?? (record.cardJson.display_name as string | undefined);
    if (!servedName) {
      this.deps.logger.warn({ key }, 'model card without display_name ignored');
      return;
    }
    let model = this.live.get(servedName);
    if (!model) {
      const served = this.buildModel(record, servedName);
      if (!served) return;
      model = { served, cardKeys: new Set(), unsubscribe: this.feedKvEvents(served, record) };
      this.live.set(servedName, model);
      this.deps.models.add(served);
      this.deps.logger.info({ model: servedName, namespace: record.namespace }, 'model discovered');
    }
    this.cards.set(key, { record, name: servedName });
    model.cardKeys.add(key);
    this.refresh(servedName);
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
    model.served.router.setInstances([]);
    this.deps.models.remove(card.name);
    this.deps.logger.info({ model: card.name }, 'model removed: its last worker left');
  }

  private buildModel(record: ModelRecord, servedName: string): ServedModel | null {
    const { config, logger } = this.deps;
    try {
      // --model-path: the tokenizer files are local to the frontend, not where the worker says.
      const card = config.modelPath
        ? loadModelCard(config.modelPath, { displayName: servedName, kvCacheBlockSize: record.cardJson.kv_cache_block_size as number | undefined })
        : cardFromCardJson(record.cardJson, servedName);
      return buildServedModel(card, config, record);
    } catch (err) {
      logger.error({ model: servedName, err: (err as Error).message }, 'cannot serve discovered model');
      return null;
    }
  }

  /** A kv-routed model's indexer learns from its workers' KV events on the event plane. */
  private feedKvEvents(served: ServedModel, record: ModelRecord): Promise<() => void> | undefined {
    const policy = served.router.policy;
    if (!(policy instanceof KvRouterPolicy)) return undefined;
    const { logger } = this.deps;
    const subscription = subscribeKvEvents(
      this.deps.events(),
      record.namespace,
      record.component,
      (e) => policy.applyKvEvent(e.worker_id, e.event),
      (err) => logger.warn({ err: err.message }, 'undecodable KV event'),
    );
    subscription.catch((err: Error) => logger.error({ model: served.name, err: err.message }, 'cannot subscribe to KV events'));
    return subscription;
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
    const byId = new Map<bigint, WorkerInstance>();
    for (const key of model.cardKeys) {
      const ref = instanceRef(this.cards.get(key)!.record);
      const inst = this.instances.get(ref);
      const client = this.clients.get(ref);
      if (inst && client) byId.set(inst.instanceId, { id: inst.instanceId, client, deviceType: inst.deviceType });
    }
    model.served.router.setInstances([...byId.values()]);
  }
}
