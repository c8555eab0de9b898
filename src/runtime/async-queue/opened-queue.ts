// A stream whose queue exists only once an async start is over (a request admitted, a call sent):
// the first next() waits for the start, every later next() is the queue's own (no generator hop
// per item). Leaving before the start is over closes the queue as soon as it is there.
import { endLater, type PushingIterator, type StreamSink } from '../../protocols/index.js';
import type { AsyncQueue } from './async-queue.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** What a start gives: the queue, and optionally what sees each item as the consumer takes it. */
export interface OpenedQueue<T extends {} | null> {
  queue: AsyncQueue<T>;
  tap?: (item: T) => void;
}

export function queueStream<T extends {} | null>(open: () => Promise<OpenedQueue<T> | null>): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => new QueueStream(open) };
}

class QueueStream<T extends {} | null> implements PushingIterator<T> {
  private queue: AsyncQueue<T> | null = null;
  private tap: ((item: T) => void) | undefined;
  private opening: Promise<void> | null = null;
  private returned = false;

  constructor(private readonly open: () => Promise<OpenedQueue<T> | null>) {}

  next(): Promise<IteratorResult<T>> {
    const queue = this.queue;
    if (queue) return this.tap ? queue.next().then(this.tapped) : queue.next();
    if (this.returned) return Promise.resolve(DONE);
    return this.opened().then(() => this.next());
  }

  pushTo(sink: StreamSink<T>): void {
    const queue = this.queue;
    if (queue) {
      const tap = this.tap;
      queue.pushTo(tap ? { item: (item) => (tap(item), sink.item(item)), end: () => sink.end(), fail: (err) => sink.fail(err) } : sink);
      return;
    }
    if (this.returned) {
      endLater(sink);
      return;
    }
    this.opened().then(
      () => this.pushTo(sink),
      (err: unknown) => sink.fail(err),
    );
  }

  private opened(): Promise<void> {
    this.opening ??= this.open().then((opened) => {
      if (!opened) {
        this.returned = true;
        return;
      }
      this.queue = opened.queue;
      this.tap = opened.tap;
      if (this.returned) void opened.queue.return();
    }, this.failedToOpen);
    return this.opening;
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

  private readonly failedToOpen = (err: unknown): never => {
    this.returned = true;
    throw err;
  };

  private readonly tapped = (r: IteratorResult<T>): IteratorResult<T> => {
    if (!r.done) this.tap!(r.value);
    return r;
  };
}
