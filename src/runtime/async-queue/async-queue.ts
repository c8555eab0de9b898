// A single-consumer async queue between a producer that pushes items as they happen (the mocker's
// scheduler loop, a call-home socket) and the one request iterator that pulls them. It sits on the
// per-token path, so it is its own iterator (no async generator): a buffered item is one resolved
// promise, and an item pushed while the consumer waits resolves that consumer's pending `next()`
// directly (one promise per item, nothing queued in between). A consumer that takes its items
// pushed (`pushTo`) gets them with no promise at all: whatever the producers pushed in one go is
// handed over in one microtask for every such queue of the process, after the producer's own code
// (so a consumer that stops the request never runs inside the producer's loop).
import { beginDelivery, endDelivery, endLater, type PushingIterator, type StreamSink } from '../../protocols/index.js';

/** Past this many taken slots the backing array is compacted (when they are most of it). */
const COMPACT_AFTER = 1024;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** How the consumer's side closed: it took the end, took the failure, or stopped early (`return()`). */
export type QueueClose = 'ended' | 'failed' | 'returned';

/** Items must not be `undefined`. */
export class AsyncQueue<T extends {} | null> implements AsyncIterableIterator<T>, PushingIterator<T> {
  /**
   * Queues with items, an end or a failure for their sinks, handed over in the next microtask: the
   * first `dueCount` slots. The array keeps its storage between flushes (emptied to length 0, it
   * would be made again at the next flush's first queue).
   */
  private static readonly due: (AsyncQueue<{} | null> | undefined)[] = [];
  private static dueCount = 0;
  private static flushing = false;

  /**
   * Items from `head` to `tail`; the array keeps its length when emptied (changing an array's
   * length is a runtime call, and the queue empties once per delivery).
   */
  private readonly items: (T | undefined)[] = [];
  private head = 0;
  private tail = 0;
  private ended = false;
  private failed = false;
  private failure: unknown = null;
  private waiter: { resolve(r: IteratorResult<T>): void; reject(err: unknown): void } | null = null;
  private closed = false;
  private onClosed: ((how: QueueClose, error?: unknown) => void) | null = null;
  private sink: StreamSink<T> | null = null;
  /** Whether the sink reads each item in place, asked once when it is given (its stages are all set by then). */
  private sinkInPlace = false;
  private isDue = false;

  /** Queues an item; ignored once the queue has ended. */
  push(item: T): void {
    if (this.ended) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter.resolve({ done: false, value: item });
      return;
    }
    this.items[this.tail++] = item;
    if (this.sink) this.markDue();
  }

  /** No more items will come; the consumer still gets those already queued. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.settle();
  }

  /** Ends the queue with an error, thrown to the consumer after the queued items; ignored once ended. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failed = true;
    this.failure = error;
    this.ended = true;
    this.settle();
  }

  /** From now on items, the end or the failure go to `sink`, a microtask after they come. */
  pushTo(sink: StreamSink<T>): void {
    if (this.closed) {
      endLater(sink);
      return;
    }
    this.sink = sink;
    this.sinkInPlace = sink.readsInPlace === true;
    if (this.head < this.tail || this.ended) this.markDue();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /**
   * True while nothing waits in the queue and its sink reads each item in place: the item pushed
   * last has been handed over and read, so a producer may push that object again, refilled.
   */
  get refillable(): boolean {
    return this.head === this.tail && this.sink !== null && this.sinkInPlace;
  }

  /** Called once when the consumer's side closes: at the end, at the failure (with it), or on `return()`. */
  whenClosed(callback: (how: QueueClose, error?: unknown) => void): void {
    this.onClosed = callback;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.tail) return Promise.resolve({ done: false, value: this.take() });
    if (this.ended) return this.closeEnded() ? Promise.reject(this.failure) : Promise.resolve(DONE);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** The consumer stops: later pushes are dropped, and a sink hears nothing more. */
  return(): Promise<IteratorResult<T>> {
    this.ended = true;
    this.items.length = 0;
    this.head = 0;
    this.tail = 0;
    this.sink = null;
    this.close('returned');
    this.settleWaiter();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private settle(): void {
    if (this.sink) this.markDue();
    else this.settleWaiter();
  }

  private markDue(): void {
    if (this.isDue) return;
    this.isDue = true;
    AsyncQueue.due[AsyncQueue.dueCount++] = this;
    if (AsyncQueue.flushing) return;
    AsyncQueue.flushing = true;
    queueMicrotask(AsyncQueue.flush);
  }

  /** Every due queue's sink gets what came; a queue made due meanwhile is handed over in the same run. */
  private static flush(this: void): void {
    const due = AsyncQueue.due;
    beginDelivery();
    for (let i = 0; i < AsyncQueue.dueCount; i++) {
      const queue = due[i]!;
      due[i] = undefined;
      try {
        queue.deliver();
      } catch (err) {
        // A sink that throws is done with the stream: the producer is told to stop, the sink why.
        const sink = queue.sink;
        void queue.return();
        sink?.fail(err);
      }
    }
    AsyncQueue.dueCount = 0;
    AsyncQueue.flushing = false;
    endDelivery();
  }

  private deliver(): void {
    this.isDue = false;
    const sink = this.sink;
    if (!sink) return;
    while (this.head < this.tail) {
      sink.item(this.take());
      // The sink stopped the stream (return()) while taking the item.
      if (this.sink !== sink) return;
    }
    if (!this.ended) return;
    this.sink = null;
    if (this.closeEnded()) sink.fail(this.failure);
    else sink.end();
  }

  private settleWaiter(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = null;
    if (this.closeEnded()) waiter.reject(this.failure);
    else waiter.resolve(DONE);
  }

  /** The consumer takes the end of an ended queue: closes it as failed or ended; true when failed. */
  private closeEnded(): boolean {
    this.close(this.failed ? 'failed' : 'ended');
    return this.failed;
  }

  private close(how: QueueClose): void {
    if (this.closed) return;
    this.closed = true;
    const callback = this.onClosed;
    this.onClosed = null;
    if (how === 'failed') callback?.(how, this.failure);
    else callback?.(how);
  }

  private take(): T {
    const items = this.items;
    const item = items[this.head] as T;
    // Free the slot now: a slow consumer may leave a long backlog behind it.
    items[this.head] = undefined;
    if (++this.head === this.tail) {
      this.head = 0;
      this.tail = 0;
    } else if (this.head > COMPACT_AFTER && this.head * 2 > this.tail) {
      items.copyWithin(0, this.head, this.tail);
      this.tail -= this.head;
      this.head = 0;
      items.length = this.tail;
    }
    return item;
  }
}
