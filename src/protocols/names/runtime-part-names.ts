// The names of the runtime's pluggable parts, written once. They live here, beside the router mode
// names and for the same reason: the config table offers them as --discovery-backend,
// --request-plane and --event-plane choices (and derives `Config`'s types from them) without
// loading the runtime, and the runtime's table of each part has one row per name.

/** `--discovery-backend` values, in the order help and docs list them. */
export const DISCOVERY_BACKEND_NAMES = ['etcd', 'kubernetes', 'file', 'mem'] as const;

export type DiscoveryBackendName = (typeof DISCOVERY_BACKEND_NAMES)[number];

/** `--request-plane` values: how requests reach workers. */
export const REQUEST_PLANE_NAMES = ['tcp', 'nats', 'inproc'] as const;

export type RequestPlaneName = (typeof REQUEST_PLANE_NAMES)[number];

/** `--event-plane` values: how KV events and load metrics travel. */
export const EVENT_PLANE_NAMES = ['nats', 'zmq', 'inproc'] as const;

export type EventPlaneName = (typeof EVENT_PLANE_NAMES)[number];
