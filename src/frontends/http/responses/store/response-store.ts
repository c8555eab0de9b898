// What the Responses API keeps of a stored response, and the interface every store implements.
// Stores are asynchronous so that one shared by several processes (a directory, a cluster) fits it.

import type { ResponseStoreName } from '../../../../protocols/index.js';
import type { NatsTls } from '../../../../runtime/index.js';

type Json = Record<string, unknown>;

/** One event of a response's answer as it was written: its type and its data line. */
export type StoredEvent = readonly [type: string, data: string];

export interface StoredResponse {
  /** The Response object as it was answered. */
  response: Json;
  /** The request's own input items, as given, each with its id. */
  inputItems: Json[];
  /** The answer's events, replayed by `GET /v1/responses/{id}?stream=true`. */
  events: StoredEvent[];
  /** SHA-256 (hex) of the API key that created it; null when the service takes no keys. */
  owner: string | null;
}

/**
 * What a stored response's id is made of (the ids given are `resp_` and hex): every store can use
 * it as a key or a file name as it is. Another id is unknown without asking the store.
 */
export const STORABLE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface ResponseStore {
  /** Keeps a response under its `response.id` (a STORABLE_ID); once it resolves, every reader of the store finds it. */
  put(stored: StoredResponse): Promise<void>;
  /** The response, or undefined when unknown, deleted or expired. */
  get(id: string): Promise<StoredResponse | undefined>;
  /** False when there was nothing to delete. */
  delete(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** What every store is made from (the --response-store-* options, and the cluster the frontend uses). */
export interface ResponseStoreSettings {
  /** The most responses kept; storing one more drops the oldest. */
  maxEntries: number;
  /** How long a response is kept, in seconds. */
  ttlSecs: number;
  /** The file store's directory; its own default when absent. */
  path?: string;
  /** The etcd store's endpoints (ETCD_ENDPOINTS); etcd's default port on this host when absent. */
  etcdEndpoints?: readonly string[];
  /** The nats store's server (NATS_SERVER) and TLS (--nats-tls-*); NATS's default port on this host when absent. */
  nats?: { server: string; tls?: NatsTls };
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

/** The store by --response-store name, and its bounds. */
export interface ResponseStoreOptions extends ResponseStoreSettings {
  name: ResponseStoreName;
}

/** The options' defaults, for a service made without them (library use). */
export const DEFAULT_RESPONSE_STORE: ResponseStoreOptions = { name: 'memory', maxEntries: 10_000, ttlSecs: 24 * 3600 };
