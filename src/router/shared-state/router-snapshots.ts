// `--router-snapshot-threshold` / `--router-reset-states` (reference/router.md §2.2): a KV router
// saves its indexers to shared storage every `threshold` applied KV events, so that a router
// starting later begins from that state instead of an empty tree; `--router-reset-states` makes a
// starting router wipe the shared state instead of loading it. Storage is behind RouterStateStore
// (NATS object store in production, see runtime/nats-router-state.ts).
import type { RouterStateStore } from '../../runtime/index.js';
import { decodeKvSnapshot, encodeKvSnapshot } from '../kv/index.js';
import type { KvEventSink } from '../policies/index.js';

export const SNAPSHOT_LOCK = 'router-snapshot-lock';
export const CLEANUP_LOCK = 'router-cleanup-lock';

export interface SnapshotLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RouterSnapshotsOptions {
  /** Applied KV events between two snapshots. */
  threshold: number;
  /** How long a lock may be held; default 5 minutes. */
  lockTtlMs?: number;
  logger?: SnapshotLogger;
}

const DEFAULT_LOCK_TTL_MS = 5 * 60_000;
const silent: SnapshotLogger = { info: () => undefined, warn: () => undefined };

export class RouterSnapshots {
  private sinceSnapshot = 0;
  private saving: Promise<boolean> | null = null;
  private readonly logger: SnapshotLogger;
  private readonly lockTtlMs: number;

  constructor(
    private readonly policy: Pick<KvEventSink, 'dumpKvEvents' | 'restoreKvEvents'>,
    private readonly store: RouterStateStore,
    private readonly options: RouterSnapshotsOptions,
  ) {
    this.logger = options.logger ?? silent;
    this.lockTtlMs = options.lockTtlMs ?? DEFAULT_LOCK_TTL_MS;
  }

  /**
   * Startup, before live events are applied: with `reset`, wipes the shared state; otherwise
   * loads the saved snapshot, if any. Returns the number of events loaded.
   */
  async start(reset: boolean): Promise<number> {
    if (reset) {
      const release = await this.store.tryLock(CLEANUP_LOCK, this.lockTtlMs);
      try {
        const removed = await this.store.reset();
        this.logger.info({ removed }, removed.length > 0 ? 'router state reset (--router-reset-states)' : 'router state reset: nothing was saved');
      } finally {
        await release?.();
      }
      return 0;
    }
    const data = await this.store.load();
    if (!data) return 0;
    const events = decodeKvSnapshot(data);
    this.policy.restoreKvEvents(events);
    this.logger.info({ events: events.length }, 'router state loaded from snapshot');
    return events.length;
  }

  /** Counts one applied KV event; at the threshold a snapshot is saved in the background. */
  eventApplied(): void {
    if (++this.sinceSnapshot < this.options.threshold || this.saving) return;
    this.sinceSnapshot = 0;
    this.saving = this.snapshot()
      .catch((err: Error) => {
        this.logger.warn({ err: err.message }, 'router snapshot failed');
        return false;
      })
      .finally(() => (this.saving = null));
  }

  /** Resolves when the snapshot in progress (if any) is done; true when it was saved. */
  settled(): Promise<boolean> {
    return this.saving ?? Promise.resolve(false);
  }

  /**
   * Saves the indexers now, unless another router holds the snapshot lock (it is saving the
   * same shared state). Returns whether this router saved.
   */
  async snapshot(): Promise<boolean> {
    const release = await this.store.tryLock(SNAPSHOT_LOCK, this.lockTtlMs);
    if (!release) return false;
    try {
      const events = this.policy.dumpKvEvents();
      await this.store.save(encodeKvSnapshot(events));
      this.logger.info({ events: events.length }, 'router state snapshot saved');
      return true;
    } finally {
      await release();
    }
  }
}
