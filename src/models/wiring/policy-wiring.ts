// What a model's routers take from outside the process, wired by what their policy's registry row
// says it offers (router/policies/registry.ts `provides`), never by the policy's class: a KV event
// sink is fed its workers' KV events on top of its saved state (snapshots) and, with
// --serve-indexer, answers other routers; with --router-replica-sync a policy that shares its
// active sequences shares them, and the router's session bindings are shared too.
import type { Logger } from '../../observability/index.js';
import type { RouterEvent } from '../../protocols/index.js';
import { startSessionAffinitySync, type KvEventSink, type PolicyProvides, type PushRouter, type ReplicaSharing, type RouterSnapshots } from '../../router/index.js';
import { componentScope, randomInstanceId, subscribeKvEvents, type EventPlane, type PlaneStatus } from '../../runtime/index.js';
import type { ServedIndexers } from './served-indexers.js';

/** Whether the event plane is up, and its changes (the runtime's plane status). */
export type EventPlaneStatus = Pick<PlaneStatus, 'isUp' | 'subscribe'>;

/** Starts the snapshots of a policy's KV state for one worker component: loads (or resets) the saved state first. */
export type RouterStateFactory = (kv: KvEventSink, namespace: string, component: string) => Promise<RouterSnapshots | null>;

export interface PolicyWiringDeps {
  /** Where workers publish KV events and router replicas share their state. */
  events: () => EventPlane;
  /** While the event plane is down, KV event sinks predict from their own decisions. */
  planes?: EventPlaneStatus;
  logger: Logger;
  /** `--router-replica-sync`. */
  replicaSync: boolean;
  /** Router state snapshots (NATS event plane only). */
  routerState?: RouterStateFactory;
  /** With --serve-indexer: where kv-routed models' indexers are served to other routers. */
  indexers?: ServedIndexers;
}

/** The workers' namespace and component: where their events are published and the indexer is served. */
export interface WorkerComponent {
  readonly namespace: string;
  readonly component: string;
}

/** Resolves to the function that ends what was started; undefined when nothing was. */
export type Wired = Promise<() => void> | undefined;

export class PolicyWiring {
  constructor(private readonly deps: PolicyWiringDeps) {}

  /** A served model's router: its policy's KV feed and replica sharing, its session bindings and served indexer. */
  model(name: string, router: PushRouter, provides: PolicyProvides, workers: WorkerComponent): Wired {
    return allStops([
      this.feedKvEvents(name, provides.kvEvents, workers),
      this.shareReplicas(name, provides.replicas, workers),
      this.shareSessions(name, router, workers),
      this.serveIndexer(name, provides.kvEvents, workers),
    ]);
  }

  /** The router of a model's prefill pool: its policy's KV feed and replica sharing. */
  prefill(name: string, provides: PolicyProvides, workers: WorkerComponent): Wired {
    return allStops([this.feedKvEvents(name, provides.kvEvents, workers), this.shareReplicas(name, provides.replicas, workers)]);
  }

  /** A KV event sink learns from its workers' events on the event plane. */
  private feedKvEvents(model: string, kv: KvEventSink | undefined, { namespace, component }: WorkerComponent): Wired {
    if (!kv) return undefined;
    const { logger } = this.deps;
    // Live events are applied on top of the saved router state: those that arrive while it loads
    // wait for it (undefined: still loading; null: no snapshots).
    const starting = this.deps.routerState?.(kv, namespace, component);
    let saver: RouterSnapshots | null | undefined = starting ? undefined : null;
    const early: RouterEvent[] = [];
    const apply = (e: RouterEvent): void => {
      kv.applyKvEvent(e.worker_id, e.event, e.storage_tier, e.session_id);
      saver?.eventApplied();
    };
    void starting?.then((s) => {
      saver = s;
      for (const e of early.splice(0)) apply(e);
    });
    // A router that applies no events (approximate mode, a remote indexer) needs none of them.
    if (!kv.appliesEvents) return Promise.resolve(() => undefined);
    const subscription = subscribeKvEvents(
      this.deps.events(),
      namespace,
      component,
      (e) => (saver === undefined ? void early.push(e) : apply(e)),
      (err) => logger.warn({ err: err.message }, 'undecodable KV event'),
    );
    subscription.catch((err: Error) => logger.error({ model, err: err.message }, 'cannot subscribe to KV events'));
    const stopFollowing = this.followEventPlane(kv);
    return subscription.then((stop) => () => {
      stopFollowing();
      stop();
    });
  }

  /** The sink predicts while the event plane is down and goes back to events when it returns. */
  private followEventPlane(kv: KvEventSink): () => void {
    const planes = this.deps.planes;
    if (!planes) return () => undefined;
    kv.setEventsFlowing(planes.isUp('events'));
    return planes.subscribe(({ plane, up }) => {
      if (plane === 'events') kv.setEventsFlowing(up);
    });
  }

  /** With --router-replica-sync, the policy's active sequences are shared with the other replicas. */
  private shareReplicas(model: string, replicas: ReplicaSharing | undefined, { namespace, component }: WorkerComponent): Wired {
    if (!replicas || !this.deps.replicaSync) return undefined;
    const sync = replicas.startReplicaSync(this.deps.events(), componentScope(namespace, component), randomInstanceId());
    sync.catch((err: Error) => this.deps.logger.error({ model, err: err.message }, 'cannot start router replica sync'));
    return sync;
  }

  /** With --router-replica-sync, the router's session bindings are shared with the other replicas. */
  private shareSessions(model: string, router: PushRouter, { namespace, component }: WorkerComponent): Wired {
    const affinity = router.affinity;
    if (!affinity || !this.deps.replicaSync) return undefined;
    const sync = startSessionAffinitySync(this.deps.events(), affinity, {
      scope: componentScope(namespace, component),
      routerId: randomInstanceId(),
      knows: (worker) => router.instanceIds.includes(worker),
    });
    sync.catch((err: Error) => this.deps.logger.error({ model, err: err.message }, 'cannot share session affinity with router replicas'));
    return sync;
  }

  /** With --serve-indexer, a KV event sink answers other routers. */
  private serveIndexer(model: string, kv: KvEventSink | undefined, { namespace, component }: WorkerComponent): Wired {
    if (!kv || !this.deps.indexers) return undefined;
    const serving = this.deps.indexers.add(namespace, component, model, kv);
    serving.catch((err: Error) => this.deps.logger.error({ model, err: err.message }, 'cannot serve the KV indexer'));
    return serving;
  }
}

/** One stop for several started subscriptions (absent ones skipped). */
function allStops(started: readonly Wired[]): Wired {
  const present = started.filter((s) => s !== undefined);
  if (present.length === 0) return undefined;
  return Promise.all(present).then((stops) => () => {
    for (const stop of stops) stop();
  });
}
