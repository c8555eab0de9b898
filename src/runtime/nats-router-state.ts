// RouterStateStore on NATS JetStream (nats-server with `-js`): the snapshot is the object
// `{scope}/radix-state` in the object store bucket `radix-bucket` (upstream's bucket and object
// names; the component scope prefix keeps several models' routers on one NATS apart). Locks are
// create-if-absent messages in the memory stream `router-locks`, one subject per lock, kept at
// most one per subject and aged out after the stream's max_age (the TTL of the first router that
// created the stream): publishing expects "no message on this subject yet", release purges it.
import {
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  StorageType,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import type { LockRelease, RouterStateStore } from './router-state-store.js';

export const SNAPSHOT_BUCKET = 'radix-bucket';
export const SNAPSHOT_OBJECT = 'radix-state';
export const LOCK_STREAM = 'router-locks';

/** `namespace.{ns}.component.{c}` → `namespace-{ns}-component-{c}` (NATS token and object-name safe). */
function slug(scope: string): string {
  return scope.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
}

export class NatsRouterStateStore implements RouterStateStore {
  /** The snapshot's object name. */
  readonly objectName: string;
  private readonly lockPrefix: string;
  private bucket: Promise<ObjectStore> | null = null;
  private manager: Promise<JetStreamManager> | null = null;

  /** `scope`: the workers' `namespace.{ns}.component.{c}`. */
  constructor(
    private readonly nc: NatsConnection,
    scope: string,
  ) {
    const s = slug(scope);
    this.objectName = `${s}/${SNAPSHOT_OBJECT}`;
    this.lockPrefix = `${LOCK_STREAM}.${s}`;
  }

  async load(): Promise<Uint8Array | null> {
    return (await this.objects()).getBlob(this.objectName);
  }

  async save(snapshot: Uint8Array): Promise<void> {
    await (await this.objects()).putBlob({ name: this.objectName }, snapshot);
  }

  async reset(): Promise<string[]> {
    const removed: string[] = [];
    const store = await this.objects();
    if (await store.info(this.objectName)) {
      await store.delete(this.objectName);
      removed.push(`${SNAPSHOT_BUCKET}/${this.objectName}`);
    }
    try {
      const jsm = await jetstreamManager(this.nc);
      const purged = await jsm.streams.purge(LOCK_STREAM, { filter: `${this.lockPrefix}.>` });
      if (purged.purged > 0) removed.push(`${LOCK_STREAM}: ${purged.purged} lock(s)`);
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    }
    return removed;
  }

  async tryLock(name: string, ttlMs: number): Promise<LockRelease | null> {
    const jsm = await this.locks(ttlMs);
    const subject = `${this.lockPrefix}.${name}`;
    try {
      await jetstream(this.nc).publish(subject, '', { expect: { lastSubjectSequence: 0 } });
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence) return null;
      throw err;
    }
    return async () => {
      await jsm.streams.purge(LOCK_STREAM, { filter: subject });
    };
  }

  private objects(): Promise<ObjectStore> {
    this.bucket ??= new Objm(this.nc).create(SNAPSHOT_BUCKET).catch((err: Error) => {
      this.bucket = null;
      throw new Error(`NATS object store ${SNAPSHOT_BUCKET} unavailable (is JetStream enabled, nats-server -js?): ${err.message}`);
    });
    return this.bucket;
  }

  private locks(ttlMs: number): Promise<JetStreamManager> {
    this.manager ??= (async () => {
      const jsm = await jetstreamManager(this.nc);
      try {
        await jsm.streams.info(LOCK_STREAM);
      } catch {
        await jsm.streams
          .add({
            name: LOCK_STREAM,
            subjects: [`${LOCK_STREAM}.>`],
            storage: StorageType.Memory,
            max_msgs_per_subject: 1,
            discard: DiscardPolicy.Old,
            max_age: ttlMs * 1_000_000,
          })
          .catch(async (err: Error) => {
            // Another router created it in the meantime.
            await jsm.streams.info(LOCK_STREAM).catch(() => Promise.reject(err));
          });
      }
      return jsm;
    })().catch((err: Error) => {
      this.manager = null;
      throw err;
    });
    return this.manager;
  }
}
