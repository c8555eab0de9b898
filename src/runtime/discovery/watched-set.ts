import type { StoreEventHandler } from './backend.js';

/**
 * The keys a watcher has reported, so a full re-listing (after a reconnect, or a directory scan)
 * can be turned into just the puts and deletes that changed.
 */
export class WatchedSet {
  private readonly known = new Map<string, string>();
  constructor(private readonly handler: StoreEventHandler) {}

  put(key: string, value: string): void {
    if (this.known.get(key) === value) return;
    this.known.set(key, value);
    this.handler({ type: 'put', key, value });
  }

  delete(key: string): void {
    if (!this.known.delete(key)) return;
    this.handler({ type: 'delete', key });
  }

  /** Replaces the whole view with `entries`, reporting the difference. */
  resync(entries: Iterable<[string, string]>): void {
    const seen = new Set<string>();
    for (const [key, value] of entries) {
      seen.add(key);
      this.put(key, value);
    }
    for (const key of [...this.known.keys()]) if (!seen.has(key)) this.delete(key);
  }
}
