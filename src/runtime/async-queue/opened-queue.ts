// A stream whose queue exists only once its start is over (a request admitted, a call sent): the
// first next() waits for the start, every later next() is the queue's own (no generator hop per
// item). Leaving before the start is over closes the queue as soon as it is there. A start that is
// over at once (answers a queue, not a promise) opens the stream with no promise and no hop.
import { endLater, iterableOf, type PushingIterator, type StreamSink } from '../../protocols/index.js';
import type { AsyncQueue } from './async-queue.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** What a start gives: the queue, and optionally what sees each item as the consumer takes it. */
export interface OpenedQueue<T extends {} | null> {
  queue: AsyncQueue<T>;
  /** Reads each item within the call and keeps nothing of it. */
  tap?: (item: T) => void;
}

/** How a stream starts: its queue now, or a promise of it; a start that throws fails the stream as a rejection would. */
export type QueueStart<T extends {} | null> = () => OpenedQueue<T> | null | Promise<OpenedQueue<T> | null>;

export function queueStream<T extends {} | null>(open: QueueStart<T>): AsyncIterable<T> {
  return iterableOf(() => new QueueStream(open));
}

/**
 * The stream of a start already under way (a call sent before the consumer's first pull): its
 * failure is the stream's, at the first pull, and a stream never pulled does not fail the process.
 */
export function startedQueueStream<T extends {} | null>(opened: Promise<OpenedQueue<T> | null>): AsyncIterable<T> {
  opened.catch(ignore);
  return queueStream(() => opened);
}

const ignore = (): void => undefined;

const OPENED: Promise<void> = Promise.resolve();

class QueueStream<T extends {} | null> implements PushingIterator<T> {
  private queue: AsyncQueue<T> | null = null;
  private tap: ((item: T) => void) | undefined;
  private opening: Promise<void> | null = null;
  private returned = false;
  /** A consumer that asked for the items pushed before the queue was open: it gets them once it is. */
  private waitingSink: StreamSink<T> | null = null;
  /** Taps each pulled item; made on the first pull of a tapped queue. */
  private tapped: ((r: IteratorResult<T>) => IteratorResult<T>) | null = null;

  constructor(private readonly open: QueueStart<T>) {}

  next(): Promise<IteratorResult<T>> {
    const queue = this.queue;
    if (queue) return this.tap ? queue.next().then((this.tapped ??= (r) => this.tapOne(r))) : queue.next();
    if (this.returned) return Promise.resolve(DONE);
    const opening = this.opened();
    // Opened at once: the queue (or the end) is there now.
    return opening === OPENED ? this.next() : opening.then(() => this.next());
  }

  pushTo(sink: StreamSink<T>): void {
    const queue = this.queue;
    if (queue) {
      const tap = this.tap;
      queue.pushTo(tap ? new TappedSink(tap, sink) : sink);
      return;
    }
    if (this.returned) {
      endLater(sink);
      return;
    }
    this.waitingSink = sink;
    void this.opened();
  }

  /** Starts the stream once; OPENED when the start was over at once. */
  private opened(): Promise<void> {
    if (this.opening) return this.opening;
    let started: OpenedQueue<T> | null | Promise<OpenedQueue<T> | null>;
    try {
      started = this.open();
    } catch (err) {
      started = Promise.reject(err);
    }
    if (started instanceof Promise) {
      this.opening = started.then(
        (opened) => this.openedWith(opened),
        (err: unknown) => {
          this.returned = true;
          const sink = this.waitingSink;
          this.waitingSink = null;
          // A consumer waiting for pushed items hears the failure; a pulling one gets it from its next().
          if (!sink) throw err;
          sink.fail(err);
        },
      );
    } else {
      this.opening = OPENED;
      this.openedWith(started);
    }
    return this.opening;
  }

  private openedWith(opened: OpenedQueue<T> | null): void {
    if (!opened) this.returned = true;
    else {
      this.queue = opened.queue;
      this.tap = opened.tap;
      if (this.returned) void opened.queue.return();
    }
    const sink = this.waitingSink;
    this.waitingSink = null;
    if (sink) this.pushTo(sink);
  }

  /** True once the queue is open: a failure then reaches a pending `next()`. */
  get failable(): boolean {
    return this.queue !== null;
  }

  /** Fails the stream from outside (a watchdog): the pending `next()` rejects with `error`. */
  fail(error: unknown): void {
    this.queue?.fail(error);
  }

  return(): Promise<IteratorResult<T>> {
    this.returned = true;
    return this.queue ? this.queue.return() : Promise.resolve(DONE);
  }

  private tapOne(r: IteratorResult<T>): IteratorResult<T> {
    if (!r.done) this.tap!(r.value);
    return r;
  }
}

/** A sink whose items the tap sees first: one object, not a closure per callback. */
class TappedSink<T> implements StreamSink<T> {
  constructor(
    private readonly tap: (item: T) => void,
    private readonly sink: StreamSink<T>,
  ) {}

  get readsInPlace(): boolean {
    return this.sink.readsInPlace === true;
  }

  item(item: T): void {
    this.tap(item);
    this.sink.item(item);
  }

  end(): void {
    this.sink.end();
  }

  fail(err: unknown): void {
    this.sink.fail(err);
  }
}
