// The discovery join (reference/http.md §6.4): model cards (`v1/mdc/`) × endpoint instances
// (`v1/instances/`) in the frontend's namespace scope. A model appears with its first card whose
// files match their BLAKE3 checksums and leaves with its last card; its instances are those with
// both a card for it and a live endpoint record, so an instance whose lease ends leaves at once.
// What a model becomes (served, tensor) is the listener's business.
import type { Logger } from '../observability/index.js';
import { cardWorkerType } from '../protocols/index.js';
import {
  decodeEndpointInstance,
  decodeModelRecord,
  endpointPath,
  INSTANCES_BUCKET,
  MODELS_BUCKET,
  RemoteEngineClient,
  RemoteMediaClient,
  RemoteTensorClient,
  verifyFileChecksums,
  watchRecords,
  type DiscoveryBackend,
  type EndpointInstance,
  type ModelRecord,
  type NamespaceScope,
  type RequestPlaneClient,
} from '../runtime/index.js';

/** An instance's clients, one per kind of request its routers send. */
export interface InstanceClients {
  readonly llm: RemoteEngineClient;
  readonly tensor: RemoteTensorClient;
  readonly media: RemoteMediaClient;
}

/** An instance joined to a model by one of its cards. */
export interface JoinedInstance {
  readonly instance: EndpointInstance;
  readonly clients: InstanceClients;
  readonly record: ModelRecord;
}

/** Told what the join finds. */
export interface DiscoveryJoinListener {
  /**
   * A model's first card passed its check: build off the event loop what bringing it live will
   * need; the returned release is called once `appeared` returned.
   */
  prepare(name: string, record: ModelRecord): Promise<() => void>;
  /** A model's first card passed its check and was prepared: bring the model live; false when it cannot be (a later card tries again). */
  appeared(name: string, record: ModelRecord): boolean;
  /** The instances joined to a live model, in the order of its cards: it went live, or a worker or a card came or left. */
  changed(name: string, joined: readonly JoinedInstance[]): void;
  /** A live model's last card left. */
  left(name: string): void;
  /** A card's files do not match their checksums. */
  rejected(name: string, err: Error): void;
  /** An instance registered: new, or renewed after a restart of etcd or of the worker. */
  registered(instance: EndpointInstance): void;
  /** An instance's record is gone. */
  deregistered(instance: EndpointInstance): void;
}

export interface DiscoveryJoinOptions {
  backend: DiscoveryBackend;
  requestClient: RequestPlaneClient;
  inScope: NamespaceScope;
  logger: Logger;
  /** `--model-name`: every card is served under this name instead of its `display_name`. */
  servedName?: string;
  /** False when the frontend reads its own copy of the model's files (`--model-path`): checksums are not checked. */
  checkFiles: boolean;
}

/** `ns/comp/ep/{id:x}`: joins a card to the endpoint instance it describes. */
function instanceRef(rec: { namespace: string; component: string; endpoint: string; instanceId: bigint }): string {
  return `${endpointPath(rec)}/${rec.instanceId.toString(16)}`;
}

/** A prefill card serves no API of its own: its model goes live with a decode (or aggregated) card. */
export function isPrefillCard(record: ModelRecord): boolean {
  return cardWorkerType(record.cardJson) === 'prefill';
}

export class DiscoveryJoin {
  private readonly cards = new Map<string, { record: ModelRecord; name: string }>();
  private readonly instances = new Map<string, { instance: EndpointInstance; clients: InstanceClients }>();
  /** Live model → the keys of its cards. */
  private readonly live = new Map<string, Set<string>>();
  /** Models whose first card is being checked before they go live. */
  private readonly preparing = new Set<string>();

  constructor(
    private readonly options: DiscoveryJoinOptions,
    private readonly listener: DiscoveryJoinListener,
  ) {}

  /** Watches instances, then cards; resolves to the function that stops both watches. */
  async start(): Promise<() => void> {
    const { backend, inScope, logger } = this.options;
    const stopInstances = await watchRecords(backend, `${INSTANCES_BUCKET}/`, decodeEndpointInstance, {
      onPut: (_key, instance) => {
        if (inScope(instance.namespace)) this.putInstance(instance);
      },
      onDelete: (key) => this.deleteInstance(key.slice(INSTANCES_BUCKET.length + 1)),
      onInvalid: (key) => logger.warn({ key }, 'ignoring a discovery value that is not an endpoint instance'),
    });
    let stopCards: () => void;
    try {
      stopCards = await watchRecords(backend, `${MODELS_BUCKET}/`, decodeModelRecord, {
        onPut: (key, record) => {
          if (inScope(record.namespace)) this.addCard(key, record);
        },
        onDelete: (key) => this.removeCard(key),
        onInvalid: (key) => logger.warn({ key }, 'ignoring a discovery value that is not a model card'),
      });
    } catch (err) {
      stopInstances();
      throw err;
    }
    return () => {
      stopInstances();
      stopCards();
    };
  }

  /** Every endpoint instance in scope now, model workers or not. */
  endpointInstances(): EndpointInstance[] {
    return Array.from(this.instances.values(), (i) => i.instance);
  }

  private putInstance(instance: EndpointInstance): void {
    const ref = instanceRef(instance);
    const { requestClient, logger } = this.options;
    this.instances.set(ref, {
      instance,
      clients: {
        llm: new RemoteEngineClient(requestClient, instance, logger),
        tensor: new RemoteTensorClient(requestClient, instance, logger),
        media: new RemoteMediaClient(requestClient, instance, logger),
      },
    });
    this.listener.registered(instance);
    this.refreshFor(ref);
  }

  private deleteInstance(ref: string): void {
    const known = this.instances.get(ref);
    if (!known) return;
    this.instances.delete(ref);
    this.listener.deregistered(known.instance);
    this.options.logger.info({ instance: ref }, 'worker instance left');
    this.refreshFor(ref);
  }

  private addCard(key: string, record: ModelRecord): void {
    const name = this.options.servedName ?? (record.cardJson.display_name as string | undefined);
    if (!name) {
      this.options.logger.warn({ key }, 'model card without display_name ignored');
      return;
    }
    this.cards.set(key, { record, name });
    const keys = this.live.get(name);
    if (keys) {
      keys.add(key);
      this.refresh(name);
    } else if (!this.preparing.has(name) && !isPrefillCard(record)) {
      this.prepare(key, record, name);
    }
  }

  /** Checks a model's first card, then brings the model live with every card that names it by then. */
  private prepare(key: string, record: ModelRecord, name: string): void {
    this.preparing.add(name);
    void this.checkFiles(record, name).then(async (ok) => {
      const release = ok ? await this.listener.prepare(name, record) : undefined;
      this.preparing.delete(name);
      const keys = [...this.cards].filter(([, c]) => c.name === name).map(([k]) => k);
      if (!ok) {
        this.cards.delete(key);
        const other = keys.find((k) => k !== key && !isPrefillCard(this.cards.get(k)!.record));
        if (other) this.prepare(other, this.cards.get(other)!.record, name);
        return;
      }
      try {
        if (keys.length > 0) this.goLive(name, record, keys);
      } finally {
        release?.();
      }
    });
  }

  private goLive(name: string, record: ModelRecord, keys: string[]): void {
    if (!this.listener.appeared(name, record)) return;
    this.live.set(name, new Set(keys));
    this.refresh(name);
  }

  /** False (and an error log) when the card's files do not match their checksums. */
  private async checkFiles(record: ModelRecord, name: string): Promise<boolean> {
    if (!this.options.checkFiles) return true;
    try {
      await verifyFileChecksums(record.cardJson);
      return true;
    } catch (err) {
      this.options.logger.error(
        { model: name, namespace: record.namespace, instance: record.instanceId.toString(16), err: (err as Error).message },
        'model card rejected: its files do not match the checksums it carries',
      );
      this.listener.rejected(name, err as Error);
      return false;
    }
  }

  private removeCard(key: string): void {
    const card = this.cards.get(key);
    if (!card) return;
    this.cards.delete(key);
    const keys = this.live.get(card.name);
    if (!keys) return;
    keys.delete(key);
    if (keys.size > 0) {
      this.refresh(card.name);
      return;
    }
    this.live.delete(card.name);
    this.listener.left(card.name);
  }

  /** Re-derives the instances of every model with a card for `ref`. */
  private refreshFor(ref: string): void {
    const names = new Set<string>();
    for (const { record, name } of this.cards.values()) if (instanceRef(record) === ref) names.add(name);
    for (const name of names) this.refresh(name);
  }

  private refresh(name: string): void {
    const keys = this.live.get(name);
    if (!keys) return;
    const joined: JoinedInstance[] = [];
    for (const key of keys) {
      const { record } = this.cards.get(key)!;
      const known = this.instances.get(instanceRef(record));
      if (known) joined.push({ ...known, record });
    }
    this.listener.changed(name, joined);
  }
}
