// The names of the router modes and router queue orders, written once. They live here, with the
// wire types, because two layers need them and neither may import the other: the config table
// offers them as --router-mode / --router-queue-policy choices (and derives `Config`'s types from
// them) without loading the router, and the router registers one policy per mode name.

/** `--router-mode` values, in the order help and docs list them. */
export const ROUTER_MODES = ['round-robin', 'random', 'kv', 'direct', 'least-loaded', 'device-aware-weighted', 'power-of-two'] as const;

export type RouterMode = (typeof ROUTER_MODES)[number];

/** `--router-queue-policy` values: the order in which the router queue releases requests. */
export const QUEUE_POLICIES = ['fcfs', 'wspt', 'lcfs'] as const;

export type QueuePolicy = (typeof QUEUE_POLICIES)[number];

/**
 * The queue orders a deployment may choose, on the flag and in policy classes: upstream accepts
 * only these two; `lcfs` stays an order of the queue itself, for comparisons.
 */
export const SELECTABLE_QUEUE_POLICIES = ['fcfs', 'wspt'] as const satisfies readonly QueuePolicy[];

/** `--router-approximate-cache-policy` values: how approximate mode forgets its predicted blocks. */
export const APPROXIMATE_CACHE_POLICIES = ['ttl', 'lru'] as const;

export type ApproximateCachePolicy = (typeof APPROXIMATE_CACHE_POLICIES)[number];

/** `--router-tracking-hash` values: how the router derives the identities it tracks active sequences by. */
export const TRACKING_HASHES = ['public-xxh3-v1', 'keyed-xxh3-v1'] as const;

export type TrackingHashAlgorithm = (typeof TRACKING_HASHES)[number];

/** `--shared-cache-type` values: the external KV pool whose hits the router credits (hicache: SGLang HiCache over Mooncake). */
export const SHARED_CACHE_TYPES = ['none', 'hicache'] as const;

export type SharedCacheType = (typeof SHARED_CACHE_TYPES)[number];
