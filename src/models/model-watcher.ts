// Discovery → live models: the discovery join (discovery-join.ts) finds which workers serve which
// model; each model, as it appears, is assembled from its card (assembly/) and its routers wired to
// what their policies take from outside (wiring/). Workers' load reports feed each instance's
// capacity, which busy detection reads. One InstanceHealth, shared by every router built here,
// takes a lost instance out of routing at once; it comes back when discovery registers it again or
// it answers a ping over its request plane. One WorkerLiveness beside it finds workers gone silent.
import type { Logger } from '../observability/index.js';
import { PreprocessPool } from '../pipeline/index.js';
import { InstanceHealth, WorkerLiveness, type HealthChange } from '../router/index.js';
import type { DiscoveryBackend, EventPlane, ModelRecord, NamespaceScope, RequestPlaneClient } from '../runtime/index.js';
import type { ModelSettings, TensorModelSink } from './assembly/index.js';
import { DiscoveryJoin } from './discovery-join.js';
import { goLive, modelKind, prepareLive, type LiveModel, type LiveModelContext } from './live-models.js';
import type { ModelManager } from './model-manager.js';
import { LoadReports, PolicyWiring, type EventPlaneStatus, type RouterStateFactory, type ServedIndexers } from './wiring/index.js';

/** How the watcher serves what it discovers (launch translates the frontend's flags). */
export interface ModelWatcherSettings {
  readonly model: ModelSettings;
  /** `--model-name`: every card is served under this name instead of its `display_name`. */
  readonly servedName?: string;
  /** `--model-path`: the frontend's own copy of the model's files, read instead of those the cards name (whose checksums are then not checked). */
  readonly localModelPath?: string;
  /** `--use-remote-indexer`. */
  readonly useRemoteIndexer: boolean;
  /** `--router-replica-sync`. */
  readonly replicaSync: boolean;
  /** `--dyn-preprocess-workers` (0: none): threads for big prompts of every model, from `preprocessMinChars` characters. */
  readonly preprocessWorkers: number;
  readonly preprocessMinChars: number;
}

export interface ModelWatcherDeps {
  backend: DiscoveryBackend;
  requestClient: RequestPlaneClient;
  /** Where workers publish KV events and load reports. */
  events: () => EventPlane;
  /** Whether the event plane is up: KV routers predict while it is down. */
  planes?: EventPlaneStatus;
  models: ModelManager;
  settings: ModelWatcherSettings;
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

export class ModelWatcher {
  /** Which instances are down, for every router built here. */
  readonly health: InstanceHealth;
  /** Which workers went silent, for every LLM router built here; null when that check is off. */
  readonly liveness: WorkerLiveness | null;
  private readonly join: DiscoveryJoin;
  private readonly live = new Map<string, LiveModel>();
  private readonly loads: LoadReports;
  private readonly wiring: PolicyWiring;
  /** The threads every model built here preprocesses big prompts on. */
  private readonly pool: PreprocessPool | undefined;
  private readonly context: LiveModelContext;
  private readonly stops: (() => void)[] = [];

  constructor(private readonly deps: ModelWatcherDeps) {
    const { settings, logger } = deps;
    this.health = new InstanceHealth({ probe: (id, timeoutMs) => this.probe(id, timeoutMs) });
    const silence = settings.model.router.silence;
    this.liveness = silence ? new WorkerLiveness(this.health, silence) : null;
    this.stops.push(this.health.subscribe((change) => this.onHealthChange(change)));
    this.pool = settings.preprocessWorkers > 0 ? new PreprocessPool(settings.preprocessWorkers, settings.preprocessMinChars) : undefined;
    this.loads = new LoadReports(deps.events, logger);
    this.wiring = new PolicyWiring({
      events: deps.events,
      planes: deps.planes,
      logger,
      replicaSync: settings.replicaSync,
      routerState: deps.routerState,
      indexers: deps.indexers,
    });
    const { backend, requestClient, inScope } = deps;
    const rejected = (name: string, err: Error): void => deps.observer?.modelRejected?.(name, err);
    this.context = {
      settings: settings.model,
      localModelPath: settings.localModelPath,
      useRemoteIndexer: settings.useRemoteIndexer,
      models: deps.models,
      tensorModels: deps.tensorModels,
      health: this.health,
      liveness: this.liveness,
      loads: this.loads,
      wiring: this.wiring,
      logger,
      pool: this.pool,
      requestClient,
      endpointInstances: () => this.join.endpointInstances(),
      rejected,
    };
    this.join = new DiscoveryJoin(
      { backend, requestClient, inScope, logger, servedName: settings.servedName, checkFiles: !settings.localModelPath },
      {
        prepare: (name, record) => prepareLive(modelKind(record), name, record, this.context),
        appeared: (name, record) => this.goLive(name, record),
        changed: (name, joined) => {
          const instances = this.live.get(name)!.update(joined);
          deps.observer?.modelChanged?.(name, instances);
        },
        left: (name) => this.remove(name),
        rejected,
        // A registration (new, renewed after a restart of etcd or of the worker) brings a down instance back.
        registered: ({ instanceId }) => this.health.markUp(instanceId, 'registered again'),
        deregistered: (instance) => {
          const { instanceId } = instance;
          this.loads.forget(instanceId);
          this.health.forget(instanceId);
          // Streams still running there: a worker that answers at its old address drains, one that does not is lost.
          this.liveness?.departed(instanceId, (timeoutMs) => requestClient.probe(instance, timeoutMs));
        },
      },
    );
  }

  async start(): Promise<void> {
    this.stops.push(await this.join.start());
  }

  /** Stops watching; resolves once the preprocessing threads have ended. */
  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    this.health.close();
    for (const model of this.live.values()) model.stop();
    this.loads.stop();
    await this.pool?.close();
  }

  private goLive(name: string, record: ModelRecord): boolean {
    const kind = modelKind(record);
    const model = goLive(kind, name, record, this.context);
    if (!model) return false;
    this.live.set(name, model);
    this.deps.logger.info({ model: name, namespace: record.namespace, tensor: kind === 'tensor' }, 'model discovered');
    return true;
  }

  private remove(name: string): void {
    const model = this.live.get(name)!;
    this.live.delete(name);
    model.remove();
    this.deps.logger.info({ model: name }, 'model removed: its last worker left');
  }

  /** A down worker's load reports no longer count: it must never look least loaded. */
  private onHealthChange({ id, down, reason, downMs }: HealthChange): void {
    const { logger } = this.deps;
    const instance = id.toString(16);
    if (down) {
      this.loads.forget(id);
      logger.warn({ instance, reason }, `worker instance marked down: it leaves routing until it is back (${reason})`);
    } else {
      const downSecs = Math.round((downMs ?? 0) / 100) / 10;
      logger.info({ instance, reason, downSecs }, `worker instance back in routing after ${downSecs} s down (${reason})`);
    }
  }

  /** Does the instance's process answer a ping over its request plane? */
  private async probe(id: bigint, timeoutMs?: number): Promise<boolean> {
    const instance = this.join.endpointInstances().find((i) => i.instanceId === id);
    return instance ? this.deps.requestClient.probe(instance, timeoutMs) : false;
  }
}
