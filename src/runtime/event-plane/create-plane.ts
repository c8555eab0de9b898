import type { DiscoveryBackend, Lease } from '../discovery/index.js';
import type { NatsTls } from '../nats-connection.js';
import { LocalEventPlane } from './local-plane.js';
import { NatsEventPlane } from './nats-plane.js';
import type { EventPlane } from './types.js';
import { ZmqEventPlane } from './zmq-plane.js';

export type EventPlaneName = 'nats' | 'zmq' | 'inproc';

export interface EventPlaneDeps {
  natsServer: string;
  natsTls?: NatsTls;
  backend: DiscoveryBackend;
  lease: () => Promise<Lease>;
  advertiseHost: string;
  /** zmq: where the publisher binds; all interfaces when unset. */
  bindHost?: string;
  /** inproc only: planes with the same scope share one subscriber table. */
  memScope?: string;
}

/** Upstream's default when unset: nats with etcd or kubernetes discovery, zmq otherwise. */
export function defaultEventPlane(discovery: string): EventPlaneName {
  return discovery === 'etcd' || discovery === 'kubernetes' ? 'nats' : 'zmq';
}

export function createEventPlane(name: EventPlaneName, deps: EventPlaneDeps): EventPlane {
  switch (name) {
    case 'nats':
      return new NatsEventPlane(deps.natsServer, deps.natsTls);
    case 'zmq':
      return new ZmqEventPlane({ backend: deps.backend, lease: deps.lease, advertiseHost: deps.advertiseHost, bindHost: deps.bindHost });
    case 'inproc':
      return new LocalEventPlane(deps.memScope);
  }
}
