// Responses kept in the NATS JetStream KV bucket `dynamo-ts-responses`, shared by every frontend of
// a cluster: a key per response, its value packed by cluster-value.ts, one value kept per key. The
// bucket's stream carries the bounds, so the server keeps them: its max age is the TTL, and it holds
// at most --response-store-max-entries messages, dropping the oldest (a KV bucket refuses messages
// when full unless told to discard old ones instead). A delete leaves a marker message that counts
// against the bound until it ages out. The bounds are those of the frontend that opened the bucket
// last. The store has its own connection to NATS_SERVER, closed with it.

import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ServiceUnreachableError } from '../../../../protocols/index.js';
import { connectNats } from '../../../../runtime/index.js';
import { isFresh, packResponse, unpackFresh } from './cluster-value.js';
import type { ResponseStore, ResponseStoreSettings, StoredResponse } from './response-store.js';

export const NATS_BUCKET = 'dynamo-ts-responses';
const DEFAULT_SERVER = 'nats://localhost:4222';
const STORE_FIX = 'start nats-server there with JetStream (-js), set NATS_SERVER to where it runs, or use --response-store file (the frontend processes of one host)';

export class NatsResponseStore implements ResponseStore {
  private readonly now: () => number;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly settings: ResponseStoreSettings,
  ) {
    this.now = settings.now ?? Date.now;
  }

  /** Connects, and makes the bucket or sets its bounds: a NATS without JetStream fails the start. */
  static async open(settings: ResponseStoreSettings): Promise<NatsResponseStore> {
    const { server, tls } = settings.nats ?? { server: DEFAULT_SERVER };
    const nc = await connectNats(server, tls).catch((err: unknown) => {
      throw err instanceof ServiceUnreachableError ? new ServiceUnreachableError(err.service, err.endpoint, err.reason, STORE_FIX) : err;
    });
    try {
      const ttlMs = settings.ttlSecs * 1000;
      const kv = await new Kvm(nc).create(NATS_BUCKET, { history: 1, ttl: ttlMs });
      const bounds = { max_age: ttlMs * 1_000_000, max_msgs: settings.maxEntries, discard: DiscardPolicy.Old };
      const jsm = await jetstreamManager(nc);
      const stream = `KV_${NATS_BUCKET}`;
      const { config } = await jsm.streams.info(stream);
      if (config.max_age !== bounds.max_age || config.max_msgs !== bounds.max_msgs || config.discard !== bounds.discard) await jsm.streams.update(stream, bounds);
      return new NatsResponseStore(nc, kv, settings);
    } catch (err) {
      await nc.close();
      throw new ServiceUnreachableError('NATS JetStream', server, (err as Error).message, STORE_FIX);
    }
  }

  async put(stored: StoredResponse): Promise<void> {
    await this.kv.put(String(stored.response.id), await packResponse(stored, this.now()));
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const value = await this.value(id);
    return value ? unpackFresh(value, this.settings, this.now()) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    const value = await this.value(id);
    if (!value) return false;
    await this.kv.delete(id);
    return isFresh(value, this.settings, this.now());
  }

  async close(): Promise<void> {
    await this.nc.close();
  }

  /** The key's value; undefined when it has none (never written, deleted, or aged out). */
  private async value(id: string): Promise<Uint8Array | undefined> {
    const entry = await this.kv.get(id);
    return entry?.operation === 'PUT' ? entry.value : undefined;
  }
}
