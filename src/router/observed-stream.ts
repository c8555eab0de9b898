// One routed request's stream as the layers around its dispatch see it: observers hear each output
// and the end, and an optional watchdog fails the stream when the worker stays silent. However many
// layers observe a stream, it is wrapped once (each wrapper is a promise hop per token): a layer
// observing a stream another layer already wraps adds its observer to that wrapper.
import { deliveryNow, endLater, pushItems, type LLMEngineOutput, type PushingIterator, type StreamSink } from '../protocols/index.js';
import { silenceClock, type SilenceCheck } from './silence-clock.js';

/**
 * Observers of one routed request's stream. Most only need the first output and the end: the
 * per-output hook is called only for observers that have one, so they cost nothing per token.
 */
export interface StreamObserver<Out = LLMEngineOutput> {
  /** Each output as it passes (the first one marks the end of prefill). */
  onOutput?(out: Out): void;
  /** Once, with the first output (the end of prefill). */
  onFirstOutput?(out: Out): void;
  /** Once: the stream finished, failed (with `error`), or its consumer stopped early. */
  onEnd(error?: unknown): void;
}

/**
 * The silence watchdog: the stream fails with `error()` when a `next()` waited `ms` without an
 * output. Time counts only while a `next()` is pending: a slow consumer is not a silent worker.
 */
export interface SilenceWatch {
  /** How long the stream may stay silent; read each time the watchdog arms, so it may follow the stream. */
  readonly ms: number;
  error(): Error;
  /** Called once the stream failed for silence: stop the call. */
  onSilent(): void;
  /** Told when each output arrived (a pace to derive `ms` from). */
  heard?(at: number): void;
  /**
   * The silence reached `ms` (`silentMs` in all): resolves true to keep waiting another `ms` (the
   * worker answers and is busy), false to fail the stream. Absent: the silence fails it.
   */
  overdue?(silentMs: number): Promise<boolean>;
  /** Given once the stream is read: fails it at once, as silent (its worker was found unresponsive elsewhere). */
  attach?(failNow: () => void): void;
}

/**
 * A stream that can fail its own pending read (an async queue once open): the watchdog then needs
 * no promise of its own per output.
 */
interface FailableIterator {
  readonly failable: boolean;
  fail(error: unknown): void;
}

const SETUP = Symbol('observed stream setup');

/** A routed stream and what observes it, until it is read. */
class ObservedIterable<Out> implements AsyncIterable<Out> {
  readonly observers: StreamObserver<Out>[] = [];
  watch: SilenceWatch | null = null;
  /** Set once iterated: observers added later would miss outputs. */
  iterated = false;

  constructor(private readonly stream: AsyncIterable<Out>) {}

  /** Marks the wrapper, so a layer observing it joins it. */
  get [SETUP](): this {
    return this;
  }

  [Symbol.asyncIterator](): AsyncIterator<Out> {
    this.iterated = true;
    let inner: AsyncIterator<Out>;
    try {
      inner = this.stream[Symbol.asyncIterator]();
    } catch (err) {
      for (const o of this.observers) o.onEnd(err);
      throw err;
    }
    return new ObservedStream(inner, this.observers, this.watch);
  }
}

/** `stream` with `observer` hearing its outputs and end (joining the wrapper already around it, if any). */
export function observeStream<Out>(stream: AsyncIterable<Out>, observer: StreamObserver<Out>): AsyncIterable<Out> {
  const wrapped = wrapperOf(stream);
  wrapped.observers.push(observer);
  return wrapped;
}

/** `stream` failing after `watch.ms` of silence. */
export function watchSilence<Out>(stream: AsyncIterable<Out>, watch: SilenceWatch): AsyncIterable<Out> {
  const wrapped = wrapperOf(stream);
  wrapped.watch = watch;
  return wrapped;
}

function wrapperOf<Out>(stream: AsyncIterable<Out>): ObservedIterable<Out> {
  const existing = (stream as { [SETUP]?: ObservedIterable<Out> })[SETUP];
  return existing && !existing.iterated ? existing : new ObservedIterable(stream);
}

/** The observers with a per-output hook; one shared empty list when none has one (the common case). */
function perOutput<Out>(observers: readonly StreamObserver<Out>[]): readonly StreamObserver<Out>[] {
  let found: StreamObserver<Out>[] | null = null;
  for (let i = 0; i < observers.length; i++) if (observers[i]!.onOutput) (found ??= []).push(observers[i]!);
  return found ?? NONE;
}

const NONE: readonly never[] = Object.freeze([]);

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class ObservedStream<Out> implements PushingIterator<Out>, StreamSink<Out>, SilenceCheck {
  /** The observers with a per-output hook (those told of the first output are found once, when it comes). */
  private readonly every: readonly StreamObserver<Out>[];
  private sawOutput = false;
  private done = false;
  private ended = false;
  private waiting = false;
  private waitingSince = 0;
  /** Set while the silence clock will check this stream (at `dueAt`). */
  private armed = false;
  dueAt = 0;
  /** Its place in the silence clock while armed. */
  slot = -1;
  /** Fails the pending `next()` when the watchdog fires (inner streams that cannot fail themselves). */
  private failPending: ((err: Error) => void) | null = null;
  private silent = false;
  /** A silence failure no read was waiting for: the next read gets it. */
  private unread: Error | null = null;
  /** When the watch last chose to keep waiting: silence is counted again from there. */
  private graceFrom = 0;
  private readonly failable: FailableIterator | null;
  /** The pull handlers, made on the first pull. */
  private onItem: ((r: IteratorResult<Out>) => IteratorResult<Out>) | null = null;
  private onError: ((err: unknown) => never) | null = null;
  /** Set once the consumer takes the outputs pushed. */
  private sink: StreamSink<Out> | null = null;

  constructor(
    private readonly inner: AsyncIterator<Out>,
    private readonly observers: readonly StreamObserver<Out>[],
    private readonly watch: SilenceWatch | null,
  ) {
    this.every = perOutput(observers);
    const f = inner as Partial<FailableIterator>;
    this.failable = typeof f.fail === 'function' && 'failable' in f ? (f as FailableIterator) : null;
    if (watch) {
      this.arm(watch.ms);
      watch.attach?.(() => this.failSilent(watch.error()));
    }
  }

  next(): Promise<IteratorResult<Out>> {
    if (this.done) {
      const unread = this.unread;
      this.unread = null;
      return unread ? Promise.reject(unread) : Promise.resolve(DONE);
    }
    if (!this.watch) return this.pull();
    this.waiting = true;
    this.waitingSince = performance.now();
    if (this.failable?.failable) return this.pull();
    // One promise the watchdog can fail, rather than a race per item (each race would leave a
    // reaction on a shared promise for the stream's whole life).
    return new Promise<IteratorResult<Out>>((resolve, reject) => {
      this.failPending = reject;
      this.inner.next().then(
        (r) => {
          // After a silence the call already failed: whatever the worker sends late is dropped.
          if (!this.silent) resolve(this.pulled(r));
        },
        (err: unknown) => {
          if (this.silent) return;
          try {
            this.pullFailed(err);
          } catch (thrown) {
            reject(thrown);
          }
        },
      );
    });
  }

  /** Outputs pushed: observers hear each as it passes; the watchdog counts the time since the last. */
  pushTo(sink: StreamSink<Out>): void {
    if (this.done) {
      endLater(sink);
      return;
    }
    this.sink = sink;
    this.waiting = true;
    this.waitingSince = this.watch ? performance.now() : 0;
    // The inner stream pushes to this stream itself (item, end, fail): no relay per request.
    pushItems(this.inner, this);
  }

  /**
   * The consumer reads each output in place, and so does every observer: those without a
   * per-output hook keep nothing of it (the first output's hook reads it within the call).
   */
  get readsInPlace(): boolean {
    return this.sink?.readsInPlace === true && this.every.length === 0;
  }

  /** An output pushed by the inner stream, for the consumer's sink unless it left. */
  item(out: Out): void {
    const sink = this.sink;
    if (!sink) return;
    if (this.watch) {
      this.waitingSince = deliveryNow();
      this.watch.heard?.(this.waitingSince);
    }
    this.observe(out);
    sink.item(out);
  }

  /** The inner stream's pushed end. */
  end(): void {
    const sink = this.sink;
    if (!sink) return;
    this.sink = null;
    this.finish();
    sink.end();
  }

  /** The inner stream's pushed failure. */
  fail(err: unknown): void {
    const sink = this.sink;
    if (!sink) return;
    this.sink = null;
    this.finish(err);
    sink.fail(err);
  }

  return(value?: unknown): Promise<IteratorResult<Out>> {
    this.sink = null;
    // After a silence the inner call is stuck in its pending step and already stopped: nothing to wait for.
    if (this.silent || !this.inner.return) {
      this.finish();
      return Promise.resolve(DONE);
    }
    // The call is closed first, then the observers hear the end: by then an engine that stops on
    // close has let go of the call's signal, which another call may then take (protocols/streams/call-signals.ts).
    try {
      return this.inner.return(value);
    } finally {
      this.finish();
    }
  }

  throw(err?: unknown): Promise<IteratorResult<Out>> {
    this.finish();
    return this.inner.throw ? this.inner.throw(err) : Promise.reject(err);
  }

  /** The inner stream's next result, observed; the handlers are made on the first pull (a pushed stream needs none). */
  private pull(): Promise<IteratorResult<Out>> {
    return this.inner.next().then((this.onItem ??= (r) => this.pulled(r)), (this.onError ??= (err) => this.pullFailed(err)));
  }

  private pulled(r: IteratorResult<Out>): IteratorResult<Out> {
    this.waiting = false;
    this.failPending = null;
    if (r.done) this.finish();
    else {
      this.watch?.heard?.(performance.now());
      this.observe(r.value);
    }
    return r;
  }

  private observe(out: Out): void {
    if (!this.sawOutput) {
      this.sawOutput = true;
      // The watch's bound after a first output may be shorter than the one the check was due with.
      if (this.armed && this.watch?.heard) this.arm(this.watch.ms);
      // Indexed loops: an array iterator per loop is an allocation on the per-output path.
      const observers = this.observers;
      for (let i = 0; i < observers.length; i++) observers[i]!.onFirstOutput?.(out);
    }
    const every = this.every;
    for (let i = 0; i < every.length; i++) every[i]!.onOutput!(out);
  }

  private pullFailed(err: unknown): never {
    this.waiting = false;
    this.failPending = null;
    this.finish(err);
    throw err;
  }

  /** The stream is over: the watchdog stops and every observer hears the end once. */
  private finish(error?: unknown): void {
    this.done = true;
    if (this.armed) {
      this.armed = false;
      silenceClock.leave(this);
    }
    if (this.ended) return;
    this.ended = true;
    const observers = this.observers;
    for (let i = 0; i < observers.length; i++) observers[i]!.onEnd(error);
  }

  private arm(delayMs: number): void {
    this.armed = true;
    silenceClock.enter(this, delayMs);
  }

  /** The silence clock's check, once due. */
  checkSilence(): void {
    this.armed = false;
    const watch = this.watch!;
    const now = performance.now();
    const silentMs = this.waiting ? now - this.waitingSince : 0;
    const quietMs = this.waiting ? now - Math.max(this.waitingSince, this.graceFrom) : 0;
    const limit = watch.ms;
    if (quietMs < limit) {
      this.arm(limit - quietMs);
      return;
    }
    if (!watch.overdue) {
      this.failSilent(watch.error());
      return;
    }
    const decided = (keepWaiting: boolean): void => {
      if (this.done) return;
      if (!keepWaiting) {
        this.failSilent(watch.error());
        return;
      }
      this.graceFrom = performance.now();
      this.arm(watch.ms);
    };
    watch.overdue(silentMs).then(decided, () => decided(false));
  }

  /** Fails the stream as silent: its consumer hears `err`, and the silent call is stopped. */
  private failSilent(err: Error): void {
    if (this.done) return;
    const watch = this.watch!;
    const sink = this.sink;
    if (sink) {
      // Pushed: the consumer hears the failure now, and the silent call is closed and stopped.
      this.sink = null;
      this.silent = true;
      this.finish(err);
      this.inner.return?.()?.catch(() => undefined);
      watch.onSilent();
      sink.fail(err);
      return;
    }
    const fail = this.failPending;
    this.failPending = null;
    if (!fail && this.failable?.failable) {
      // The pending (or next) read rejects with `err` and reaches pullFailed like any failure.
      this.failable.fail(err);
      watch.onSilent();
      return;
    }
    this.silent = true;
    this.waiting = false;
    this.finish(err);
    watch.onSilent();
    if (fail) fail(err);
    else this.unread = err;
  }
}
