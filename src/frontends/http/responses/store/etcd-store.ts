// Responses kept in etcd, shared by every frontend of a cluster: one key per response under
// `dynamo-ts/responses/`, its value packed by cluster-value.ts. Keys are written under a lease that
// ends after the TTL, so etcd removes them: one lease per minute of puts (a lease per response
// would leave etcd a lease for every response of the TTL, evicted ones included), each lasting the
// TTL plus that minute; a reader treats a key past its own TTL as gone. After a put, the keys
// beyond the bound go, oldest first by their last write (the mod revision: one order for every
// frontend, so frontends bounding at once remove the same keys).

import { Etcd3, type Namespace } from 'etcd3';
import { ServiceUnreachableError } from '../../../../protocols/index.js';
import { etcdReason } from '../../../../runtime/index.js';
import { isFresh, packResponse, unpackFresh } from './cluster-value.js';
import type { ResponseStore, ResponseStoreSettings, StoredResponse } from './response-store.js';

export const ETCD_PREFIX = 'dynamo-ts/responses/';
const DEFAULT_ENDPOINTS = ['http://localhost:2379'];
const ETCD_FIX = 'start etcd there, set ETCD_ENDPOINTS to where it runs, or use --response-store file (the frontend processes of one host)';
/** How long one lease takes new keys, at most. */
const LEASE_SPAN_SECS = 60;

interface TakingLease {
  id: string;
  /** Until when (ms) new keys go under it. */
  until: number;
}

export class EtcdResponseStore implements ResponseStore {
  private readonly keys: Namespace;
  private readonly now: () => number;
  private lease: Promise<TakingLease> | undefined;

  private constructor(
    private readonly client: Etcd3,
    private readonly settings: ResponseStoreSettings,
  ) {
    this.keys = client.namespace(ETCD_PREFIX);
    this.now = settings.now ?? Date.now;
  }

  /** Connects, and reads once so that an etcd that cannot be reached fails the start. */
  static async open(settings: ResponseStoreSettings): Promise<EtcdResponseStore> {
    const endpoints = [...(settings.etcdEndpoints ?? DEFAULT_ENDPOINTS)];
    const client = new Etcd3({ hosts: endpoints, dialTimeout: 3000 });
    try {
      await client.namespace(ETCD_PREFIX).getAll().count();
    } catch (err) {
      client.close();
      throw new ServiceUnreachableError('etcd', endpoints.join(','), etcdReason(err as Error), ETCD_FIX);
    }
    return new EtcdResponseStore(client, settings);
  }

  async put(stored: StoredResponse): Promise<void> {
    const now = this.now();
    const value = await packResponse(stored, now);
    const id = String(stored.response.id);
    try {
      await this.keys.put(id).value(value).lease((await this.takingLease(now)).id);
    } catch {
      // The lease may be gone (etcd lost its data): once more under a new one.
      this.lease = undefined;
      await this.keys.put(id).value(value).lease((await this.takingLease(now)).id);
    }
    await this.bound();
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const value = await this.keys.get(id).buffer();
    return value ? unpackFresh(value, this.settings, this.now()) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    const [previous] = await this.keys.delete().key(id).getPrevious();
    return previous !== undefined && isFresh(previous.value, this.settings, this.now());
  }

  async close(): Promise<void> {
    this.client.close();
  }

  /** The lease new keys go under at `now`: the current one, or a new one once its span is over. */
  private async takingLease(now: number): Promise<TakingLease> {
    const current = await this.lease?.catch(() => undefined);
    if (current && now < current.until) return current;
    const span = Math.min(LEASE_SPAN_SECS, this.settings.ttlSecs);
    this.lease = this.client.leaseClient.leaseGrant({ TTL: this.settings.ttlSecs + span }).then(({ ID }) => ({ id: ID, until: now + span * 1000 }));
    return this.lease;
  }

  private async bound(): Promise<void> {
    const count = await this.keys.getAll().count();
    if (count <= this.settings.maxEntries) return;
    const oldest = await this.keys.getAll().sort('Mod', 'Ascend').limit(count - this.settings.maxEntries).keys();
    await Promise.all(oldest.map((key) => this.keys.delete().key(key)));
  }
}
