// What the Responses API keeps of a stored response, and the interface every store implements.
// Stores are asynchronous so that one shared by several processes (a file, a cluster) fits it.

import type { ResponseStoreName } from '../../../../protocols/index.js';

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

export interface ResponseStore {
  /** Keeps a response under its `response.id`. */
  put(stored: StoredResponse): Promise<void>;
  /** The response, or undefined when unknown, deleted or expired. */
  get(id: string): Promise<StoredResponse | undefined>;
  /** False when there was nothing to delete. */
  delete(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** What every store is made from (the --response-store-* options). */
export interface ResponseStoreSettings {
  /** The most responses kept; storing one more drops the oldest. */
  maxEntries: number;
  /** How long a response is kept, in seconds. */
  ttlSecs: number;
  /** The file of a store kept in one (sqlite); its own default when absent. */
  path?: string;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}


/** The store by --response-store name, and its bounds. */
export interface ResponseStoreOptions extends ResponseStoreSettings {
  name: ResponseStoreName;
}

/** The options' defaults, for a service made without them (library use). */
export const DEFAULT_RESPONSE_STORE: ResponseStoreOptions = { name: 'memory', maxEntries: 10_000, ttlSecs: 24 * 3600 };
