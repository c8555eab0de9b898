// etcd discovery: keys under the worker's lease (10 s by default, kept alive by the client),
// create-if-absent registration, get-and-watch from the listed revision, re-list after reconnects.
import { Etcd3, EtcdLeaseInvalidError, type IOptions, type Lease as EtcdLease, type Watcher } from 'etcd3';
import { KeyExistsError, type DiscoveryBackend, type Lease, type StoreEventHandler } from './backend.js';
import { WatchedSet } from './watched-set.js';

type HostPolicy = ReturnType<NonNullable<NonNullable<IOptions['faultHandling']>['host']>>;

/**
 * The client's default per-host circuit breaker stays open 5 s after three failures: across an
 * etcd restart that starves lease keep-alives long enough for short leases to expire. Calls go
 * straight through instead; the lease and watch loops do their own retrying.
 */
const PASS_THROUGH = { execute: async <T>(fn: () => Promise<T>) => fn() } as unknown as HostPolicy;

export interface EtcdBackendOptions {
  /** `ETCD_ENDPOINTS`: comma-separated URLs. */
  endpoints: string[];
  leaseTtlSecs: number;
}

class EtcdLeaseHandle implements Lease {
  private readonly keys = new Set<string>();
  private lostHandler: ((err: Error) => void) | null = null;
  private lostError: Error | null = null;

  constructor(
    readonly id: bigint,
    private readonly client: Etcd3,
    private readonly lease: EtcdLease,
  ) {
    lease.on('lost', (err: Error) => {
      this.lostError = err;
      this.lostHandler?.(err);
    });
  }

  async create(key: string, value: string): Promise<void> {
    const res = await this.client
      .if(key, 'Create', '==', 0)
      .then(this.client.put(key).value(value).lease(this.id.toString()))
      .commit();
    if (!res.succeeded) throw new KeyExistsError(key);
    this.keys.add(key);
  }

  async delete(key: string): Promise<void> {
    this.keys.delete(key);
    await this.client.delete().key(key).exec();
  }

  async revoke(): Promise<void> {
    await Promise.all([...this.keys].map((key) => this.client.delete().key(key).exec().catch(() => undefined)));
    this.keys.clear();
    await this.lease.revoke().catch((err: unknown) => {
      if (!(err instanceof EtcdLeaseInvalidError)) throw err;
    });
  }

  onLost(handler: (err: Error) => void): void {
    this.lostHandler = handler;
    if (this.lostError) handler(this.lostError);
  }
}

export class EtcdDiscoveryBackend implements DiscoveryBackend {
  readonly name = 'etcd';
  private readonly client: Etcd3;
  private readonly watchers = new Set<Watcher>();

  constructor(private readonly opts: EtcdBackendOptions) {
    this.client = new Etcd3({ hosts: opts.endpoints, dialTimeout: 3000, faultHandling: { host: () => PASS_THROUGH } });
  }

  async grantLease(): Promise<Lease> {
    const lease = this.client.lease(this.opts.leaseTtlSecs);
    let id: string;
    try {
      id = await lease.grant();
    } catch (err) {
      throw new Error(`cannot reach etcd at ${this.opts.endpoints.join(',')}: ${(err as Error).message}`);
    }
    return new EtcdLeaseHandle(BigInt(id), this.client, lease);
  }

  async watch(prefix: string, handler: StoreEventHandler): Promise<() => void> {
    const view = new WatchedSet(handler);
    const listing = await this.client.getAll().prefix(prefix).exec();
    view.resync(listing.kvs.map((kv) => [kv.key.toString('utf8'), kv.value.toString('utf8')]));
    const watcher = await this.client
      .watch()
      .prefix(prefix)
      .startRevision((BigInt(listing.header.revision) + 1n).toString())
      .create();
    this.watchers.add(watcher);
    watcher.on('put', (kv) => view.put(kv.key.toString('utf8'), kv.value.toString('utf8')));
    watcher.on('delete', (kv) => view.delete(kv.key.toString('utf8')));
    // The watcher resumes from its last revision on its own; a re-list also covers compaction gaps.
    let disconnected = false;
    watcher.on('disconnected', () => (disconnected = true));
    watcher.on('connected', () => {
      if (!disconnected) return;
      disconnected = false;
      this.client
        .getAll()
        .prefix(prefix)
        .exec()
        .then((res) => view.resync(res.kvs.map((kv) => [kv.key.toString('utf8'), kv.value.toString('utf8')])))
        .catch(() => undefined);
    });
    watcher.on('error', () => undefined);
    return () => {
      this.watchers.delete(watcher);
      void watcher.cancel().catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.watchers].map((w) => w.cancel().catch(() => undefined)));
    this.watchers.clear();
    this.client.close();
  }
}
