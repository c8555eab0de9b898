// In-process discovery: one shared map per scope per process. Tests and `serve` only; leases never expire.
import { randomInstanceId } from '../ids.js';
import { KeyExistsError, type DiscoveryBackend, type Lease, type StoreEventHandler } from './backend.js';

interface Entry {
  value: string;
  owner: bigint;
}

class MemStore {
  readonly entries = new Map<string, Entry>();
  readonly watchers = new Set<{ prefix: string; handler: StoreEventHandler }>();

  set(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    for (const w of this.watchers) if (key.startsWith(w.prefix)) w.handler({ type: 'put', key, value: entry.value });
  }

  remove(key: string): void {
    if (!this.entries.delete(key)) return;
    for (const w of this.watchers) if (key.startsWith(w.prefix)) w.handler({ type: 'delete', key });
  }
}

const stores = new Map<string, MemStore>();

class MemLease implements Lease {
  readonly id = randomInstanceId();
  private readonly keys = new Set<string>();
  constructor(private readonly store: MemStore) {}

  async create(key: string, value: string): Promise<void> {
    if (this.store.entries.has(key)) throw new KeyExistsError(key);
    this.keys.add(key);
    this.store.set(key, { value, owner: this.id });
  }

  async delete(key: string): Promise<void> {
    this.keys.delete(key);
    this.store.remove(key);
  }

  async revoke(): Promise<void> {
    for (const key of this.keys) this.store.remove(key);
    this.keys.clear();
  }

  onLost(): void {
    // An in-process lease cannot be lost.
  }
}

export class MemDiscoveryBackend implements DiscoveryBackend {
  readonly name = 'mem';
  private readonly store: MemStore;

  /** Backends created with the same `scope` in one process see each other. */
  constructor(scope = 'default') {
    let store = stores.get(scope);
    if (!store) stores.set(scope, (store = new MemStore()));
    this.store = store;
  }

  async grantLease(): Promise<Lease> {
    return new MemLease(this.store);
  }

  async watch(prefix: string, handler: StoreEventHandler): Promise<() => void> {
    for (const [key, entry] of this.store.entries) if (key.startsWith(prefix)) handler({ type: 'put', key, value: entry.value });
    const watcher = { prefix, handler };
    this.store.watchers.add(watcher);
    return () => this.store.watchers.delete(watcher);
  }

  async close(): Promise<void> {
    // Nothing to release: the map outlives any one backend.
  }
}
