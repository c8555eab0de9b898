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

/** Reads of a snapshot that another router keeps replacing, before giving up. */
const MAX_READS = 5;

/** Time for reading `size` bytes over a NATS connection: 2 s plus 1 s per 10 MB. */
function readDeadlineMs(size: number): number {
  return 2_000 + size / 10_000;
}

/** The stream's bytes, or null (the stream cancelled) when they are not all in within `ms`. */
async function readWithin(stream: ReadableStream<Uint8Array>, ms: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === null) {
        await reader.cancel().catch(() => undefined);
        return null;
      }
      if (next.done) return Buffer.concat(parts);
      parts.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
}

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

  /**
   * The saved snapshot, or null. The object store reads an object's chunks by the id its info
   * names; a router that saves (or resets) meanwhile purges those chunks, and the read would then
   * wait forever for them. So each read has a deadline for its size; past it, a changed or deleted
   * object is read again from its new info, and an unchanged one is an error.
   */
  async load(): Promise<Uint8Array | null> {
    const store = await this.objects();
    for (let attempt = 1; ; attempt++) {
      const object = await store.get(this.objectName);
      if (object === null) return null;
      const data = await readWithin(object.data, readDeadlineMs(object.info.size));
      if (data !== null) {
        const err = await object.error;
        if (err) throw err;
        return data;
      }
      const now = await store.info(this.objectName);
      if (now !== null && !now.deleted && now.nuid === object.info.nuid) {
        throw new Error(`reading the router snapshot ${SNAPSHOT_BUCKET}/${this.objectName} (${object.info.size} bytes) stalled`);
      }
      if (attempt >= MAX_READS) throw new Error(`the router snapshot ${SNAPSHOT_BUCKET}/${this.objectName} was replaced during each of ${MAX_READS} reads`);
    }
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
