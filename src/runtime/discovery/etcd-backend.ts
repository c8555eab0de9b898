// etcd discovery: keys under the worker's lease (10 s by default, kept alive every TTL/3), create-if-
// absent registration, get-and-watch from the listed revision, re-list after reconnects. Lost
// connections are retried with a 50 ms → 5 s exponential backoff (backoff.ts).
import { Etcd3, EtcdLeaseInvalidError, type IOptions, type Lease as EtcdLease, type Watcher } from 'etcd3';
import { ServiceUnreachableError } from '../../protocols/index.js';
import type { PlaneConnection } from '../plane-status.js';
import { KeyExistsError, type DiscoveryBackend, type Lease, type StoreEventHandler } from './backend.js';
import { Backoff, watchBackoff } from './backoff.js';
import { etcdReason } from './etcd-reason.js';
import { WatchedSet } from './watched-set.js';

type FaultHandling = NonNullable<IOptions['faultHandling']>;
type HostPolicy = ReturnType<NonNullable<FaultHandling['host']>>;

/**
 * The client's default per-host circuit breaker stays open 5 s after three failures: across an
 * etcd restart that starves lease keep-alives long enough for short leases to expire. Calls go
 * straight through instead; the lease and watch loops do their own retrying.
 */
const PASS_THROUGH = { execute: async <T>(fn: () => Promise<T>) => fn() } as unknown as HostPolicy;

const ETCD_FIX = 'start etcd there, set ETCD_ENDPOINTS to where it runs, or use --discovery-backend file (one host) or kubernetes';

export interface EtcdBackendOptions {
  /** `ETCD_ENDPOINTS`: comma-separated URLs. */
  endpoints: string[];
  leaseTtlSecs: number;
  /** Told when etcd is lost (a keep-alive fails, a watch stream breaks) and when it is back. */
  connection?: PlaneConnection;
  /**
   * A lease etcd says expired is granted again under the same id and its keys put again, instead of
   * being lost (processes that serve on without a supervisor restart: frontends).
   */
  regrantExpiredLeases?: boolean;
}

/**
 * A lease kept alive by its own loop rather than the client's (which retries every 100 ms forever):
 * a keep-alive every TTL/3; after a failure, retries back off from 50 ms but never wait longer than
 * TTL/3, so a lease whose etcd comes back (etcd restores leases on restart) is renewed in time. The
 * lease is lost only when etcd says it no longer exists (a process whose event loop was blocked past
 * the TTL); with `regrant`, it is then granted again under its id with its keys, so the process's
 * identity and registrations come back.
 */
class EtcdLeaseHandle implements Lease {
  /** This lease's keys and their values, to put again after a re-grant. */
  private readonly keys = new Map<string, string>();
  private lostHandler: ((err: Error) => void) | null = null;
  private lostError: Error | null = null;
  private readonly backoff = new Backoff();
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private ended = false;
  /** Etcd said the lease expired; the next keep-alive grants it again first. */
  private expired = false;

  constructor(
    readonly id: bigint,
    private readonly client: Etcd3,
    private readonly lease: EtcdLease,
    private readonly ttlSecs: number,
    private readonly connection?: PlaneConnection,
    private readonly regrant = false,
  ) {
    this.intervalMs = (ttlSecs * 1000) / 3;
    // The client reports an expired lease as lost; a lease granted again is not.
    if (!regrant) lease.on('lost', (err: Error) => this.lose(err));
    this.schedule(this.intervalMs);
  }

  private schedule(delayMs: number): void {
    if (this.ended) return;
    this.timer = setTimeout(() => void this.keepAlive(), delayMs);
    this.timer.unref();
  }

  private async keepAlive(): Promise<void> {
    try {
      if (this.expired) {
        await this.grantAgain();
        this.expired = false;
      }
      await this.lease.keepaliveOnce({ deadline: new Date(Date.now() + this.intervalMs) });
      this.backoff.reset();
      this.connection?.restored();
      this.schedule(this.intervalMs);
    } catch (err) {
      if (!(err instanceof EtcdLeaseInvalidError)) {
        this.connection?.lost(`lease keep-alive failed: ${etcdReason(err as Error)}`);
      } else if (this.regrant) {
        this.expired = true;
        this.connection?.lost(`lease ${this.id.toString(16)} expired; granting it again`);
      } else {
        this.lose(err);
        return;
      }
      this.schedule(Math.min(this.backoff.next(), this.intervalMs));
    }
  }

  /** Grants this lease again under its id and puts its keys back; the next keep-alive confirms it. */
  private async grantAgain(): Promise<void> {
    await this.client.leaseClient.leaseGrant({ TTL: this.ttlSecs, ID: this.id.toString() }).catch((err: Error) => {
      // Another keep-alive found it already granted again.
      if (!/lease already exists/.test(err.message)) throw err;
    });
    for (const [key, value] of this.keys) await this.client.put(key).value(value).lease(this.id.toString());
  }

  private lose(err: Error): void {
    if (this.lostError || this.ended) return;
    this.lostError = err;
    this.stopKeepAlive();
    this.lostHandler?.(err);
  }

  private stopKeepAlive(): void {
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
  }

  async create(key: string, value: string): Promise<void> {
    const res = await this.client
      .if(key, 'Create', '==', 0)
      .then(this.client.put(key).value(value).lease(this.id.toString()))
      .commit();
    if (!res.succeeded) throw new KeyExistsError(key);
    this.keys.set(key, value);
  }

  async delete(key: string): Promise<void> {
    this.keys.delete(key);
    await this.client.delete().key(key).exec();
  }

  async revoke(): Promise<void> {
    this.stopKeepAlive();
    await Promise.all([...this.keys.keys()].map((key) => this.client.delete().key(key).exec().catch(() => undefined)));
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
    const faultHandling: Partial<FaultHandling> = { host: () => PASS_THROUGH, watchBackoff: watchBackoff() as FaultHandling['watchBackoff'] };
    this.client = new Etcd3({ hosts: opts.endpoints, dialTimeout: 3000, faultHandling });
  }

  async grantLease(): Promise<Lease> {
    const lease = this.client.lease(this.opts.leaseTtlSecs, { autoKeepAlive: false });
    let id: string;
    try {
      id = await lease.grant();
    } catch (err) {
      throw new ServiceUnreachableError('etcd', this.opts.endpoints.join(','), etcdReason(err as Error), ETCD_FIX);
    }
    return new EtcdLeaseHandle(BigInt(id), this.client, lease, this.opts.leaseTtlSecs, this.opts.connection, this.opts.regrantExpiredLeases);
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
    watcher.on('disconnected', (err?: Error) => {
      disconnected = true;
      if (this.watchers.has(watcher)) this.opts.connection?.lost(`watch stream broke${err ? `: ${etcdReason(err)}` : ''}`);
    });
    watcher.on('connected', () => {
      if (!disconnected) return;
      disconnected = false;
      const backoff = new Backoff();
      const relist = (): void => {
        if (!this.watchers.has(watcher)) return;
        this.client
          .getAll()
          .prefix(prefix)
          .exec()
          .then((res) => {
            view.resync(res.kvs.map((kv) => [kv.key.toString('utf8'), kv.value.toString('utf8')]));
            this.opts.connection?.restored();
          })
          .catch(() => setTimeout(relist, backoff.next()).unref());
      };
      relist();
    });
    watcher.on('error', () => undefined);
    return () => {
      this.watchers.delete(watcher);
      void watcher.cancel().catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    // Forgotten first: a watcher cancelled on purpose is not an outage.
    const watchers = [...this.watchers];
    this.watchers.clear();
    await Promise.all(watchers.map((w) => w.cancel().catch(() => undefined)));
    this.client.close();
  }
}
