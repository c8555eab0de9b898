// The mocker as an EngineClient: owns the scheduler loop and paces it in (sped-up) simulated time.
import type {
  EngineClient,
  EngineLoad,
  GenerateContext,
  KvCacheEventData,
  LLMEngineOutput,
  PreprocessedRequest,
} from '../../protocols/index.js';
import { engineRequestChannel, followAbort, unfollowAbort, UnavailableError, type AbortFollower, type EngineRequestEvent, type PauseMode } from '../../protocols/index.js';
import { queueStream, type AsyncQueue, type OpenedQueue, type QueueClose } from '../../runtime/async-queue/index.js';
import { resolveMockerOptions, type MockerEngineOptions, type MockerOptions } from './options.js';
import { Scheduler } from './scheduler.js';
import type { OutputScript } from './scripted-stream.js';
import { createSequence, type Sequence } from './sequence.js';
import type { MockVocabulary } from './vocabulary.js';

export interface MockerStats {
  dpRank: number;
  /** Requests waiting, prefilling or decoding. */
  activeRequests: number;
  numRequestsWaiting: number;
  numRequestsRunning: number;
  kvActiveBlocks: number;
  kvTotalBlocks: number;
  /** Active blocks / total blocks, 0..1. */
  gpuCacheUsagePerc: number;
  /** Mean prefix-cache hit fraction of the last 1000 admissions, 0..1. */
  gpuPrefixCacheHitRate: number;
  /** Running requests sent back to the queue for lack of KV blocks, since start. */
  numPreemptions: number;
  /** Requests that reached their final output, since start. */
  numFinishedRequests: number;
  /** Prompts taken over from a prefill worker without prefilling them (disaggregated decode), since start. */
  numHandedOverPrompts: number;
}

/** Falling further behind simulated time than this re-anchors the clock instead of bursting to catch up. */
const MAX_LAG_MS = 50;

export class MockerEngine implements EngineClient {
  readonly options: Readonly<MockerOptions>;
  private readonly vocab: MockVocabulary;
  private readonly output: OutputScript | undefined;
  private readonly scheduler: Scheduler;
  private nextEventId = 0;
  private loopRunning = false;
  private closed = false;
  private clockStart = 0;
  private simulatedMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerDone: (() => void) | null = null;
  private readonly onLoad: ((load: EngineLoad) => void) | undefined;
  /** The last load reported, so an unchanged step reports nothing. */
  private reportedBlocks = -1;
  private reportedWaiting = -1;
  /** How generation is paused (RL admin); null while it runs. */
  private pausedAs: PauseMode | null = null;
  /** Admissions held while paused, released by resume(). */
  private readonly heldAdmissions = new Set<() => void>();
  /** pause('wait') callers, told when the last request in flight has finished. */
  private drainWaiters: (() => void)[] = [];

  constructor(options: MockerEngineOptions) {
    this.options = Object.freeze(resolveMockerOptions(options));
    this.vocab = options.vocab;
    this.output = options.output;
    this.onLoad = options.onLoad;
    const sink = options.onKvEvent;
    const dpRank = this.options.dpRank;
    const emit =
      sink && this.options.enablePrefixCaching
        ? (data: KvCacheEventData) => sink({ event_id: this.nextEventId++, data, dp_rank: dpRank })
        : null;
    this.scheduler = new Scheduler(this.options, emit);
  }

  get activeRequestCount(): number {
    return this.scheduler.numWaiting + this.scheduler.numRunning;
  }

  stats(): MockerStats {
    const kv = this.scheduler.kv;
    return {
      dpRank: this.options.dpRank,
      activeRequests: this.activeRequestCount,
      numRequestsWaiting: this.scheduler.numWaiting,
      numRequestsRunning: this.scheduler.numRunning,
      kvActiveBlocks: kv.numActiveBlocks,
      kvTotalBlocks: kv.capacity,
      gpuCacheUsagePerc: kv.numActiveBlocks / kv.capacity,
      gpuPrefixCacheHitRate: this.scheduler.prefixHitRate,
      numPreemptions: this.scheduler.numPreemptions,
      numFinishedRequests: this.scheduler.numFinished,
      numHandedOverPrompts: this.scheduler.numHandovers,
    };
  }

  /**
   * Streams one output per generated token; the last carries finish_reason and completion_usage.
   * Aborting ctx.signal, or leaving the loop early, frees the request and ends the stream without a
   * final output. Invalid requests throw a ValidationError on the first next().
   */
  generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    // Admitted at once unless the request waits (for its scripted output, or while paused).
    return queueStream(() => (this.output || this.pausedAs !== null ? this.admitLater(request, ctx) : this.admit(request, ctx)));
  }

  /** How generation is paused, or null while it runs. */
  get pauseMode(): PauseMode | null {
    return this.pausedAs;
  }

  /**
   * Pauses generation: new requests wait for resume(); in-flight ones are frozen (`keep`), finish
   * first (`wait`: resolves once they have) or end at once with finish reason `abort` (`abort`).
   */
  async pause(mode: PauseMode): Promise<void> {
    if (this.closed) throw new UnavailableError('mocker engine is closed');
    this.pausedAs = mode;
    if (mode === 'abort') {
      this.scheduler.abortAll();
      this.reportLoad();
      return;
    }
    if (mode === 'wait' && this.scheduler.hasWork) {
      const drained = new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      this.wake();
      await drained;
    }
  }

  /** Generation runs again: frozen requests continue, held admissions enter the queue. */
  resume(): void {
    if (this.pausedAs === null) return;
    this.pausedAs = null;
    for (const release of [...this.heldAdmissions]) release();
    this.wake();
  }

  /** Forgets the cached prefixes no request holds (announced as removed); returns how many blocks. */
  clearPrefixCache(): number {
    return this.scheduler.kv.dropCached();
  }

  /** The weight version final outputs report (`engine_data.weight_version`); null reports none. */
  set weightVersion(version: string | null) {
    this.scheduler.engineData = version === null ? null : { weight_version: version };
  }

  /** A stream's start once its output script is read and generation runs; null when aborted meanwhile. */
  private async admitLater(request: PreprocessedRequest, ctx: GenerateContext): Promise<OpenedQueue<LLMEngineOutput> | null> {
    if (this.closed) throw new UnavailableError('mocker engine is closed');
    const script = this.output && Array.isArray(request.token_ids) ? await this.output(request.token_ids) : null;
    const seq = createSequence(request, ctx.requestId, this.options, this.vocab, script);
    if (this.pausedAs !== null && !(await this.untilResumed(ctx.signal))) return null;
    return this.enter(seq, ctx);
  }

  /** A stream's start at once (no script, not paused): its sequence queued, its channel handed over. */
  private admit(request: PreprocessedRequest, ctx: GenerateContext): OpenedQueue<LLMEngineOutput> | null {
    if (this.closed) throw new UnavailableError('mocker engine is closed');
    return this.enter(createSequence(request, ctx.requestId, this.options, this.vocab, null), ctx);
  }

  /** The sequence joins the scheduler's queue, unless its request was given up (or the engine closed) meanwhile. */
  private enter(seq: Sequence, ctx: GenerateContext): OpenedQueue<LLMEngineOutput> | null {
    const { signal } = ctx;
    if (signal.aborted || this.closed) return null;
    const watch = engineRequestChannel.hasSubscribers ? new RequestWatch(seq, ctx, this.options.dpRank) : null;
    const admitted = new Admitted(seq, signal, watch, this.cancelSequence);
    this.scheduler.enqueue(seq);
    this.wake();
    return admitted;
  }

  /** Publishes the whole KV cache again (`cleared`, then its blocks): routers that missed events catch up. */
  announceKvCache(): void {
    if (!this.closed) this.scheduler.kv.announce();
  }

  /** Waits while generation is paused; false when the request was given up (or the engine closed) meanwhile. */
  private untilResumed(signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (resumed: boolean): void => {
        this.heldAdmissions.delete(release);
        unfollowAbort(signal, giveUp);
        resolve(resumed && !this.closed);
      };
      const release = (): void => done(true);
      const giveUp: AbortFollower = { handleEvent: () => done(false) };
      this.heldAdmissions.add(release);
      followAbort(signal, giveUp);
    });
  }

  /** Stops the loop and ends every open stream; later generate() calls fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerDone?.();
    for (const seq of this.scheduler.sequences()) this.cancel(seq);
    for (const release of [...this.heldAdmissions]) release();
    this.tellDrained();
  }

  private tellDrained(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** cancel(), made once for every admitted request to call. */
  private readonly cancelSequence = (seq: Sequence): void => this.cancel(seq);

  private cancel(seq: Sequence): void {
    if (seq.finished) return;
    this.scheduler.remove(seq);
    seq.channel.end();
    this.reportLoad();
  }

  /** A closed engine reports nothing: its worker is leaving and its event plane may be gone. */
  private reportLoad(): void {
    if (!this.onLoad || this.closed) return;
    const blocks = this.scheduler.kv.numActiveBlocks;
    const waiting = this.scheduler.numWaiting;
    if (blocks === this.reportedBlocks && waiting === this.reportedWaiting) return;
    this.reportedBlocks = blocks;
    this.reportedWaiting = waiting;
    this.onLoad({ dp_rank: this.options.dpRank, kv_used_blocks: blocks, waiting_requests: waiting });
  }

  private wake(): void {
    if (this.loopRunning || this.closed || this.pausedAs === 'keep') return;
    this.loopRunning = true;
    this.clockStart = performance.now();
    this.simulatedMs = 0;
    void this.runLoop();
  }

  private async runLoop(): Promise<void> {
    try {
      // A `keep` pause freezes the requests in flight after the step under way.
      while (!this.closed && this.scheduler.hasWork && this.pausedAs !== 'keep') {
        const plan = this.scheduler.schedule();
        this.reportLoad();
        await this.pace(plan.durationMs / this.options.speedupRatio);
        if (this.closed) break;
        this.scheduler.complete(plan);
        this.reportLoad();
      }
    } catch (err) {
      for (const seq of this.scheduler.sequences()) {
        this.scheduler.remove(seq);
        seq.channel.fail(err);
      }
      this.reportLoad();
    } finally {
      this.loopRunning = false;
      if (!this.scheduler.hasWork) this.tellDrained();
    }
  }

  /**
   * Waits until wall time catches up with simulated time. Steps shorter than a timer tick accumulate
   * and run back to back, yielding with setImmediate so I/O keeps flowing.
   */
  private pace(stepMs: number): Promise<void> {
    this.simulatedMs += stepMs;
    const now = performance.now();
    let ahead = this.clockStart + this.simulatedMs - now;
    if (ahead < -MAX_LAG_MS) {
      this.clockStart = now;
      this.simulatedMs = 0;
      ahead = 0;
    }
    if (ahead < 1) return new Promise((resolve) => setImmediate(resolve));
    return new Promise((resolve) => {
      this.timerDone = resolve;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.timerDone = null;
        resolve();
      }, ahead);
    });
  }
}

/**
 * An admitted request's ties to its caller, and what its stream opens with: the caller's signal
 * cancels it, and its channel's close (the end, a failure or the consumer leaving) frees it. One
 * object per request rather than a follower, closures and an opened-queue record of their own.
 */
class Admitted implements AbortFollower, OpenedQueue<LLMEngineOutput> {
  readonly queue: AsyncQueue<LLMEngineOutput>;
  readonly tap: ((out: LLMEngineOutput) => void) | undefined;

  constructor(
    private readonly seq: Sequence,
    private readonly signal: AbortSignal,
    private readonly watch: RequestWatch | null,
    private readonly cancel: (seq: Sequence) => void,
  ) {
    this.queue = seq.channel;
    this.tap = watch ? (out) => watch.output(out) : undefined;
    followAbort(signal, this);
    seq.channel.whenClosed(this.closed);
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.cancel(this.seq);
  }

  private readonly closed = (_how: QueueClose, error?: unknown): void => {
    unfollowAbort(this.signal, this);
    this.cancel(this.seq);
    if (error !== undefined) this.watch?.failed(error);
    this.watch?.publish();
  };
}

/** One mocker request while someone observes engine requests: published once it ended. */
class RequestWatch {
  private readonly startedAt = performance.now();
  private firstOutputAt: number | null = null;
  private finishReason: string | null = null;
  private error: unknown;

  constructor(
    private readonly seq: Sequence,
    private readonly ctx: GenerateContext,
    private readonly dpRank: number,
  ) {}

  output(out: LLMEngineOutput): void {
    this.firstOutputAt ??= performance.now();
    if (out.finish_reason) this.finishReason = String(out.finish_reason);
  }

  failed(error: unknown): void {
    this.error = error;
  }

  publish(): void {
    const event: EngineRequestEvent = {
      engine: 'mocker',
      requestId: this.ctx.requestId,
      trace: this.ctx.trace,
      dpRank: this.dpRank,
      startedAt: this.startedAt,
      firstOutputAt: this.firstOutputAt,
      endedAt: performance.now(),
      promptTokens: this.seq.promptLength,
      cachedTokens: this.seq.cachedTokens,
      outputTokens: this.seq.generatedCount,
      finishReason: this.finishReason,
      error: this.error,
    };
    engineRequestChannel.publish(event);
  }
}
