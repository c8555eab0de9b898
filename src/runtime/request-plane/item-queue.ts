// A single-consumer async queue: the call-home connection pushes, the request's iterator pulls.

export class ItemQueue<T> {
  private readonly items: T[] = [];
  private head = 0;
  private error: Error | null = null;
  private ended = false;
  private waiter: (() => void) | null = null;

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  fail(err: Error): void {
    if (this.ended) return;
    this.error = err;
    this.ended = true;
    this.wake();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.head < this.items.length) {
        const item = this.items[this.head]!;
        this.items[this.head++] = undefined as T;
        if (this.head > 1024 && this.head * 2 > this.items.length) {
          this.items.splice(0, this.head);
          this.head = 0;
        }
        yield item;
      }
      if (this.error) throw this.error;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
