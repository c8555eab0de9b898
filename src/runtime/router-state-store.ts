// Where a KV router keeps its state snapshot and the locks around it (router/shared-state/router-snapshots.ts).
// Declared here, beside its NATS implementation, so the runtime needs nothing from the router.

/** Releases a lock. */
export type LockRelease = () => Promise<void>;

export interface RouterStateStore {
  /** The saved snapshot, or null when there is none. */
  load(): Promise<Uint8Array | null>;
  save(snapshot: Uint8Array): Promise<void>;
  /** Deletes everything the store persisted for this router scope; returns what it removed. */
  reset(): Promise<string[]>;
  /** Takes the named lock for at most `ttlMs` (a crashed holder cannot block for ever); null when held elsewhere. */
  tryLock(name: string, ttlMs: number): Promise<LockRelease | null>;
}
