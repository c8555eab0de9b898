// Responses kept in this process: a Map in insertion order, so the oldest entry is always the
// first. Every entry lives the same TTL, so expired entries are also at the front: a put drops
// them (and any over the bound) from there, and a get treats an expired entry as gone. No timer.

import type { ResponseStore, ResponseStoreSettings, StoredResponse } from './response-store.js';

interface Entry {
  stored: StoredResponse;
  expiresAt: number;
}

export class MemoryResponseStore implements ResponseStore {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly settings: ResponseStoreSettings) {
    this.now = settings.now ?? Date.now;
  }

  async put(stored: StoredResponse): Promise<void> {
    const id = String(stored.response.id);
    this.entries.delete(id);
    this.entries.set(id, { stored, expiresAt: this.now() + this.settings.ttlSecs * 1000 });
    this.evict();
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.stored;
  }

  async delete(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    this.entries.delete(id);
    return entry !== undefined && entry.expiresAt > this.now();
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  /** How many responses are held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }

  private evict(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.settings.maxEntries && entry.expiresAt > now) break;
      this.entries.delete(id);
    }
  }
}
