// A single-consumer async queue between a producer that pushes items as they happen (the mocker's
// scheduler loop, a call-home socket) and the one request iterator that pulls them. It sits on the
// per-token path, so it is its own iterator (no async generator): a buffered item is one resolved
// promise, and an item pushed while the consumer waits resolves that consumer's pending `next()`
// directly (one promise per item, nothing queued in between).

/** Past this many taken slots the backing array is compacted (when they are most of it). */
const COMPACT_AFTER = 1024;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** How the consumer's side closed: it took the end, took the failure, or stopped early (`return()`). */
export type QueueClose = 'ended' | 'failed' | 'returned';

/** Items must not be `undefined`. */
export class AsyncQueue<T extends {} | null> implements AsyncIterableIterator<T> {
  private readonly items: (T | undefined)[] = [];
  private head = 0;
  private ended = false;
  private failed = false;
  private failure: unknown = null;
  private waiter: { resolve(r: IteratorResult<T>): void; reject(err: unknown): void } | null = null;
  private closed = false;
  private onClosed: ((how: QueueClose, error?: unknown) => void) | null = null;

  /** Queues an item; ignored once the queue has ended. */
  push(item: T): void {
    if (this.ended) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter.resolve({ done: false, value: item });
      return;
    }
    this.items.push(item);
  }

  /** No more items will come; the consumer still gets those already queued. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.settleWaiter();
  }

  /** Ends the queue with an error, thrown to the consumer after the queued items; ignored once ended. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failed = true;
    this.failure = error;
    this.ended = true;
    this.settleWaiter();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Called once when the consumer's side closes: at the end, at the failure (with it), or on `return()`. */
  whenClosed(callback: (how: QueueClose, error?: unknown) => void): void {
    this.onClosed = callback;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) return Promise.resolve({ done: false, value: this.take() });
    if (this.ended) {
      if (this.failed) {
        this.close('failed');
        return Promise.reject(this.failure);
      }
      this.close('ended');
      return Promise.resolve(DONE);
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** The consumer stops: later pushes are dropped. */
  return(): Promise<IteratorResult<T>> {
    this.ended = true;
    this.items.length = 0;
    this.head = 0;
    this.close('returned');
    this.settleWaiter();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private settleWaiter(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = null;
    if (this.failed) {
      this.close('failed');
      waiter.reject(this.failure);
    } else {
      this.close('ended');
      waiter.resolve(DONE);
    }
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
    const item = this.items[this.head] as T;
    if (++this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else {
      // Free the slot now: a slow consumer may leave a long backlog behind it.
      this.items[this.head - 1] = undefined;
      if (this.head > COMPACT_AFTER && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
    }
    return item;
  }
}
