// Which worker instances are down: one record per frontend process, shared by every router, so an
// instance lost by one request leaves routing for all of them at once (reference/operate-faults.md
// §2.4). An instance comes back when discovery shows it registered again (`markUp`) or when a probe
// succeeds: a ping the worker process answers over its request plane. Probes run after a backoff
// that doubles while they keep failing.

/** Does the instance answer a ping within `timeoutMs`? false or a throw: no. */
export type InstanceProbe = (id: bigint, timeoutMs?: number) => Promise<boolean>;

export interface InstanceHealthOptions {
  /** Without a probe an instance stays down until discovery registers it again. */
  probe?: InstanceProbe;
  /** The first probe's delay after the instance went down. */
  probeBackoffMs?: number;
  /** The longest delay between probes. */
  maxProbeBackoffMs?: number;
}

/** A change of one instance; `downMs`, when it comes back, is how long it was down. */
export type HealthChange = { id: bigint; down: boolean; reason: string; downMs?: number };

const DEFAULT_PROBE_BACKOFF_MS = 1_000;
/** A probe is one small frame: a worker that answers again is back within 5 s. */
const DEFAULT_MAX_PROBE_BACKOFF_MS = 5_000;

interface DownRecord {
  timer: NodeJS.Timeout | null;
  backoffMs: number;
  /** performance.now() when it went down. */
  since: number;
}

export class InstanceHealth {
  private readonly down = new Map<bigint, DownRecord>();
  private readonly listeners = new Set<(change: HealthChange) => void>();
  /** Bumped on every change, so a router can tell cheaply whether its routable set is stale. */
  private changes = 0;

  constructor(private readonly opts: InstanceHealthOptions = {}) {}

  get version(): number {
    return this.changes;
  }

  isDown(id: bigint): boolean {
    return this.down.has(id);
  }

  /** The instances down now. */
  downIds(): bigint[] {
    return [...this.down.keys()];
  }

  /** The instance failed a request as lost: it leaves routing until it registers again or a probe succeeds. */
  markDown(id: bigint, reason: string): void {
    if (this.down.has(id)) return;
    const record: DownRecord = { timer: null, backoffMs: this.opts.probeBackoffMs ?? DEFAULT_PROBE_BACKOFF_MS, since: performance.now() };
    this.down.set(id, record);
    this.scheduleProbe(id, record);
    this.emit({ id, down: true, reason });
  }

  /** The instance is back (registered again, or its probe succeeded). */
  markUp(id: bigint, reason: string): void {
    const record = this.down.get(id);
    if (!this.clear(id)) return;
    this.emit({ id, down: false, reason, downMs: performance.now() - record!.since });
  }

  /** The instance left discovery: nothing more to probe or report. */
  forget(id: bigint): void {
    if (this.clear(id)) this.changes++;
  }

  /** Does the instance answer a ping now? Without a probe nothing can answer. */
  ping(id: bigint, timeoutMs: number): Promise<boolean> {
    const probe = this.opts.probe;
    return probe ? probe(id, timeoutMs).catch(() => false) : Promise.resolve(false);
  }

  /** Told of every change; returns the function that stops it. */
  subscribe(listener: (change: HealthChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every pending probe. */
  close(): void {
    for (const record of this.down.values()) if (record.timer) clearTimeout(record.timer);
    this.down.clear();
    this.listeners.clear();
  }

  private clear(id: bigint): boolean {
    const record = this.down.get(id);
    if (!record) return false;
    if (record.timer) clearTimeout(record.timer);
    this.down.delete(id);
    return true;
  }

  private emit(change: HealthChange): void {
    this.changes++;
    for (const listener of this.listeners) listener(change);
  }

  private scheduleProbe(id: bigint, record: DownRecord): void {
    const probe = this.opts.probe;
    if (!probe) return;
    record.timer = setTimeout(() => {
      record.timer = null;
      void probe(id)
        .catch(() => false)
        .then((reachable) => {
          if (this.down.get(id) !== record) return;
          if (reachable) {
            this.markUp(id, 'probe succeeded');
            return;
          }
          record.backoffMs = Math.min(record.backoffMs * 2, this.opts.maxProbeBackoffMs ?? DEFAULT_MAX_PROBE_BACKOFF_MS);
          this.scheduleProbe(id, record);
        });
    }, record.backoffMs);
    // A pending probe never keeps the process alive.
    record.timer.unref();
  }
}
