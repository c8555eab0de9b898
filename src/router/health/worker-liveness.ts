// Gray failures: a worker that stops answering without closing anything (a stopped process, a dead
// host behind a live connection, a stuck engine) is found by the silence of its streams, confirmed
// by a ping, and taken out of routing with every stream it holds failed as lost, so migration moves
// them on with their tokens. One record per frontend process, beside its InstanceHealth.
//
// Each stream may stay silent for a bound: before its first output the first-token bound (a floor
// plus its prompt at a slow prefill rate), after it `paceFactor` times its worker's recent gap
// between outputs, within [floor, ceiling]. Past the bound the worker is pinged over its request
// plane. No answer within the ping timeout: unresponsive. An answer: the process lives, and the
// stream waits another bound, unless the worker has sent nothing on any of its streams for the
// ceiling: a stuck engine. Either verdict marks the worker down and fails its streams at once; it
// comes back when a probe (the same ping) is answered.
//
// A worker that leaves discovery (its lease expired, it deregistered, its entry was deleted) while
// it holds streams is pinged at once, at the address it was registered with: a worker that answers
// is draining (a graceful shutdown deregisters first) and keeps its streams; one that does not
// answer has them failed at once, so none waits for its silence bound.
import { WorkerLostError } from '../../protocols/index.js';
import type { SilenceWatch } from '../observed-stream.js';
import type { InstanceHealth } from './instance-health.js';

/** How long a stream may be silent before its worker is checked (see the module comment). */
export interface SilenceBounds {
  /** Before the first output: this much, plus the prompt at `prefillTokensPerSec`, up to the ceiling. */
  readonly firstTokenMs: number;
  readonly prefillTokensPerSec: number;
  /** After it: this many times the worker's recent gap between outputs, within [floorMs, ceilingMs]. */
  readonly paceFactor: number;
  readonly floorMs: number;
  /** Also how long a worker that answers pings may send nothing on any stream before it counts as stuck. */
  readonly ceilingMs: number;
  /** How long a ping may take to be answered. */
  readonly pingTimeoutMs: number;
}

export const DEFAULT_SILENCE_BOUNDS: SilenceBounds = Object.freeze({
  firstTokenMs: 3_000,
  prefillTokensPerSec: 5_000,
  paceFactor: 10,
  floorMs: 1_500,
  ceilingMs: 30_000,
  pingTimeoutMs: 1_000,
});

/** The weight of the newest gap in a worker's pace. */
const PACE_WEIGHT = 0.1;

/** What is known of one worker's streams from this process. */
class WorkerRecord {
  /** The recent gap between two outputs of one stream (a moving average); -1 until one is seen. */
  gapMs = -1;
  /** performance.now() of its latest output, or of its first stream after it had none. */
  progressAt = 0;
  readonly streams = new Set<StreamWatch>();
  /** The ping in flight, shared by every stream that asks. */
  ping: Promise<boolean> | null = null;
  /** Once it left discovery: how to ping it at the address it had (the instance list no longer has it). */
  departedPing: ((timeoutMs: number) => Promise<boolean>) | null = null;

  constructor(readonly id: bigint) {}

  heard(at: number, gap: number | null): void {
    this.progressAt = at;
    if (gap === null) return;
    this.gapMs = this.gapMs < 0 ? gap : this.gapMs + PACE_WEIGHT * (gap - this.gapMs);
  }
}

export class WorkerLiveness {
  private readonly workers = new Map<bigint, WorkerRecord>();

  constructor(
    private readonly health: InstanceHealth,
    readonly bounds: SilenceBounds = DEFAULT_SILENCE_BOUNDS,
  ) {}

  /**
   * The silence watch of one stream on worker `id` for a prompt of `promptTokens`; `stallMs` (> 0)
   * fails it as an inactivity timeout whatever the worker answers. `stop` ends the call.
   */
  watch(id: bigint, promptTokens: number, stallMs: number, stop: () => void): StreamWatch {
    let worker = this.workers.get(id);
    if (!worker) this.workers.set(id, (worker = new WorkerRecord(id)));
    // A worker idle until now has had nothing to send: its silence starts with this stream.
    if (worker.streams.size === 0) worker.progressAt = performance.now();
    const b = this.bounds;
    const firstMs = Math.min(b.ceilingMs, b.firstTokenMs + (promptTokens * 1000) / b.prefillTokensPerSec);
    return new StreamWatch(this, worker, firstMs, stallMs, stop);
  }

  /**
   * The worker left discovery; `ping` reaches it at the address it had. Without streams its record
   * goes; with streams it is pinged now, and unanswered its streams fail at once (see the module comment).
   */
  departed(id: bigint, ping: (timeoutMs: number) => Promise<boolean>): void {
    const worker = this.workers.get(id);
    if (!worker) return;
    worker.departedPing = ping;
    if (worker.streams.size === 0) {
      this.workers.delete(id);
      return;
    }
    const timeoutMs = this.bounds.pingTimeoutMs;
    void this.pingOnce(worker).then((answered) => {
      if (!answered) this.declare(worker, `left discovery and does not answer a request-plane ping within ${secs(timeoutMs)} s`);
    });
  }

  /** A stream of `worker` ended: a departed worker's record goes with its last stream. */
  released(worker: WorkerRecord): void {
    if (worker.departedPing && worker.streams.size === 0 && this.workers.get(worker.id) === worker) this.workers.delete(worker.id);
  }

  /** The silence allowed after a stream's first output, from its worker's pace. */
  paceBound(worker: WorkerRecord): number {
    const b = this.bounds;
    if (worker.gapMs < 0) return b.floorMs;
    return Math.min(b.ceilingMs, Math.max(b.floorMs, b.paceFactor * worker.gapMs));
  }

  /** A stream of `worker` has been silent past its bound: false when the worker was found unresponsive or stuck. */
  async judge(worker: WorkerRecord, silentMs: number): Promise<boolean> {
    const b = this.bounds;
    const answered = await this.pingOnce(worker);
    if (!answered) {
      const pace = worker.gapMs < 0 ? '' : ` (its recent pace: an output every ${Math.round(worker.gapMs)} ms)`;
      this.declare(worker, `unresponsive: no answer to a request-plane ping within ${secs(b.pingTimeoutMs)} s after ${secs(silentMs)} s without output${pace}`);
      return false;
    }
    const quietMs = performance.now() - worker.progressAt;
    if (quietMs >= b.ceilingMs) {
      this.declare(worker, `stuck: it answers pings but sent nothing on any of its ${worker.streams.size} streams for ${secs(quietMs)} s`);
      return false;
    }
    return true;
  }

  /** One ping of `worker` at a time, shared by every stream that asks. */
  private pingOnce(worker: WorkerRecord): Promise<boolean> {
    if (worker.ping) return worker.ping;
    const timeoutMs = this.bounds.pingTimeoutMs;
    const ping = worker.departedPing ? worker.departedPing(timeoutMs).catch(() => false) : this.health.ping(worker.id, timeoutMs);
    worker.ping = ping.finally(() => (worker.ping = null));
    return worker.ping;
  }

  /** The worker leaves routing and every stream it holds fails as lost (migration moves them). */
  private declare(worker: WorkerRecord, verdict: string): void {
    if (!this.health.isDown(worker.id)) this.health.markDown(worker.id, `${verdict}; its ${worker.streams.size} streams move to other workers`);
    for (const stream of [...worker.streams]) stream.fail(verdict);
  }
}

/** One stream's watch: its bound, what it heard, and its part in its worker's record. */
export class StreamWatch implements SilenceWatch {
  private lastAt = -1;
  private verdict: string | null = null;
  private failNow: (() => void) | null = null;

  constructor(
    private readonly liveness: WorkerLiveness,
    private readonly worker: WorkerRecord,
    private readonly firstMs: number,
    private readonly stallMs: number,
    readonly onSilent: () => void,
  ) {}

  get ms(): number {
    const bound = this.lastAt < 0 ? this.firstMs : this.liveness.paceBound(this.worker);
    return this.stallMs > 0 ? Math.min(bound, this.stallMs) : bound;
  }

  heard(at: number): void {
    this.worker.heard(at, this.lastAt < 0 ? null : at - this.lastAt);
    this.lastAt = at;
  }

  overdue(silentMs: number): Promise<boolean> {
    if (this.stallMs > 0 && silentMs >= this.stallMs) return Promise.resolve(false);
    return this.liveness.judge(this.worker, silentMs);
  }

  attach(failNow: () => void): void {
    this.failNow = failNow;
    this.worker.streams.add(this);
  }

  /** The stream ended: its worker no longer waits on it. */
  release(): void {
    this.worker.streams.delete(this);
    this.failNow = null;
    this.liveness.released(this.worker);
  }

  /** Fails the stream now with the worker's verdict. */
  fail(verdict: string): void {
    this.verdict = verdict;
    const failNow = this.failNow;
    this.release();
    failNow?.();
  }

  error(): Error {
    const id = this.worker.id;
    const why = this.verdict ?? `backend response inactivity timeout: worker ${id.toString(16)} sent nothing for ${secs(this.stallMs)} s`;
    return new WorkerLostError(this.verdict ? `worker ${id.toString(16)} ${why}` : why, id);
  }
}

function secs(ms: number): string {
  return (ms / 1000).toFixed(1).replace(/\.0$/, '');
}
