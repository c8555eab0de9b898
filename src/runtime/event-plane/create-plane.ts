import type { DiscoveryBackendName, EventPlaneName } from '../../protocols/index.js';
import type { DiscoveryBackend, Lease } from '../discovery/index.js';
import type { NatsTls } from '../nats-connection.js';
import type { PartTable } from '../part-table.js';
import type { PlaneStatus } from '../plane-status.js';
import type { EventPlane } from './types.js';

export type { EventPlaneName };

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
  /** zmq: where subscribers report losing and regaining publishers. */
  planes?: PlaneStatus;
}

/** Upstream's default when unset: nats with etcd or kubernetes discovery, zmq otherwise. */
const DEFAULT_EVENT_PLANES: { readonly [D in DiscoveryBackendName]: EventPlaneName } = {
  etcd: 'nats',
  kubernetes: 'nats',
  file: 'zmq',
  mem: 'zmq',
};

export function defaultEventPlane(discovery: DiscoveryBackendName): EventPlaneName {
  return DEFAULT_EVENT_PLANES[discovery];
}

export const EVENT_PLANES: PartTable<EventPlaneName, EventPlaneDeps, EventPlane> = {
  nats: async () => {
    const { NatsEventPlane } = await import('./nats-plane.js');
    return (deps) => new NatsEventPlane(deps.natsServer, deps.natsTls);
  },
  zmq: async () => {
    const { ZmqEventPlane } = await import('./zmq-plane.js');
    return (deps) => new ZmqEventPlane({ backend: deps.backend, lease: deps.lease, advertiseHost: deps.advertiseHost, bindHost: deps.bindHost, planes: deps.planes });
  },
  inproc: async () => {
    const { LocalEventPlane } = await import('./local-plane.js');
    return (deps) => new LocalEventPlane(deps.memScope);
  },
};
