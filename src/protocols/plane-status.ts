// What a process knows of the planes it depends on: discovery (etcd, Kubernetes), events (NATS,
// ZMQ) and the request plane's shared parts (NATS). The runtime keeps the record; /health and
// /metrics read it through this view, so neither needs the runtime.

/** The planes, as /metrics labels them (`plane_up{plane}`) and /health names them. */
export const PLANE_NAMES = ['discovery', 'events', 'requests'] as const;

export type PlaneName = (typeof PLANE_NAMES)[number];

/** One part of a plane this process cannot reach. */
export interface PlaneOutage {
  readonly plane: PlaneName;
  /** What is unreachable, e.g. `etcd at http://127.0.0.1:2379`. */
  readonly what: string;
  /** What does not work meanwhile, and what is done instead. */
  readonly effect: string;
  /** Date.now() when it was lost. */
  readonly since: number;
}

export interface PlaneStatusView {
  /** The outages now, oldest first; empty while every plane is up. */
  outages(): readonly PlaneOutage[];
}
