// The names of the stores that keep Responses API responses, written once: the config table offers
// them as --response-store choices without loading the HTTP frontend, whose table of stores has one
// row per name.

/** `--response-store` values, in the order help and docs list them. */
export const RESPONSE_STORE_NAMES = ['memory', 'file', 'etcd', 'nats'] as const;

export type ResponseStoreName = (typeof RESPONSE_STORE_NAMES)[number];
