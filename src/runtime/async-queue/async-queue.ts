// A single-consumer async queue between a producer that pushes items as they happen (the mocker's
// scheduler loop, a call-home socket) and the one request iterator that pulls them. It sits on the
// per-token path, so taking a buffered item is synchronous and waiting costs one promise per wait,
// never one per item.

/** Past this many taken slots the backing array is compacted (when they are most of it). */
const COMPACT_AFTER = 1024;

/** Items must not be `undefined`: `shift()` uses it to say "nothing buffered". */
export class AsyncQueue<T extends {} | null> implements AsyncIterable<T> {
  private readonly items: (T | undefined)[] = [];
  private head = 0;
  private ended = false;
  private failed = false;
  private failure: unknown = null;
  private waiter: (() => void) | null = null;

  /** Queues an item; ignored once the queue has ended. */
  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake();
  }

  /** No more items will come; the consumer still gets those already queued. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Ends the queue with an error, thrown to the consumer after the queued items; ignored once ended. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failed = true;
    this.failure = error;
    this.end();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /**
   * The next queued item, or undefined when none is buffered. Once the queue failed and its items
   * are taken, throws the failure.
   */
  shift(): T | undefined {
    if (this.head < this.items.length) return this.take();
    if (this.failed) throw this.failure;
    return undefined;
  }

  /** Resolves once an item is queued or the queue ends (at once if either is already true). */
  wait(): Promise<void> {
    if (this.head < this.items.length || this.ended) return Promise.resolve();
    return new Promise((resolve) => (this.waiter = resolve));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      let item: T | undefined;
      while ((item = this.shift()) !== undefined) yield item;
      if (this.ended) return;
      await this.wait();
    }
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

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
