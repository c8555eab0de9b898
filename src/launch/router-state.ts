// Wiring of `--router-snapshot-threshold` / `--router-reset-states`: a kv router over the NATS
// event plane keeps its state snapshot in the NATS object store (needs JetStream). Other event
// planes have no shared store, so setting either flag there is a startup error.
import { ConfigError, OPTIONS, type Config } from '../config/index.js';
import type { Logger } from '../observability/index.js';
import type { RouterStateFactory } from '../models/index.js';
import { RouterSnapshots } from '../router/index.js';
import { componentScope, defaultEventPlane, natsConnection, NatsRouterStateStore } from '../runtime/index.js';
import { natsTlsOptions } from './tls.js';

const DEFAULT_THRESHOLD = OPTIONS.find((o) => o.key === 'routerSnapshotThreshold')!.default;

/** Throws when a router state flag is set for an event plane other than NATS. */
export function assertRouterStateSupported(config: Config, eventPlane: string): void {
  if (eventPlane === 'nats') return;
  const set = [
    config.routerResetStates ? '--router-reset-states' : null,
    config.routerSnapshotThreshold !== DEFAULT_THRESHOLD ? '--router-snapshot-threshold' : null,
  ].filter((f) => f !== null);
  if (set.length > 0) {
    throw new ConfigError(
      `${set.join(' and ')} need${set.length === 1 ? 's' : ''} the NATS event plane (--event-plane nats, nats-server with JetStream): router state snapshots live in the NATS object store; this process uses --event-plane ${eventPlane}`,
    );
  }
}

/** The frontend's event plane (flag, else the discovery backend's default). */
export function frontendEventPlane(config: Config): string {
  return config.eventPlane ?? defaultEventPlane(config.discoveryBackend);
}

/** Undefined unless the frontend's event plane is NATS. Without JetStream, snapshots are off (warning). */
export function routerStateFactory(config: Config, logger: Logger): RouterStateFactory | undefined {
  if (frontendEventPlane(config) !== 'nats') return undefined;
  return async (kv, namespace, component) => {
    if (!kv.appliesEvents) return null;
    const scope = componentScope(namespace, component);
    const log = logger.child({ scope });
    try {
      const store = new NatsRouterStateStore(await natsConnection(config.natsServer, natsTlsOptions(config)), scope);
      const snapshots = new RouterSnapshots(kv, store, { threshold: config.routerSnapshotThreshold, logger: log });
      await snapshots.start(config.routerResetStates);
      return snapshots;
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'router state snapshots are off');
      return null;
    }
  };
}
