// The key-value layer every discovery backend provides: leases own keys, watchers see puts and deletes.
// Record formats (what the keys and values mean) live in records.ts, above this layer.

export type StoreEvent = { type: 'put'; key: string; value: string } | { type: 'delete'; key: string };

export type StoreEventHandler = (event: StoreEvent) => void;

/** A liveness lease: keys created through it vanish when it is revoked or expires. */
export interface Lease {
  /** The instance id of whoever holds the lease. */
  readonly id: bigint;
  /** Writes `key` → `value` attached to the lease, unless the key already exists (then throws). */
  create(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Deletes the lease's keys and ends it. */
  revoke(): Promise<void>;
  /** Called once if the lease is lost (expired while unreachable); the holder should stop serving. */
  onLost(handler: (err: Error) => void): void;
}

/** One connection to a discovery store. */
export interface DiscoveryBackend {
  readonly name: string;
  grantLease(): Promise<Lease>;
  /**
   * Get-and-watch: reports every current key under `prefix` as a put, then each change. After a
   * reconnect the backend re-lists and reports the difference, so handlers see a consistent view.
   * Resolves once the initial listing has been delivered; the result stops watching.
   */
  watch(prefix: string, handler: StoreEventHandler): Promise<() => void>;
  close(): Promise<void>;
}

export class KeyExistsError extends Error {
  constructor(key: string) {
    super(`discovery key already exists: ${key}`);
    this.name = 'KeyExistsError';
  }
}

/** What a backend may tell about its connection (the runtime's logger). */
export interface DiscoveryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}
