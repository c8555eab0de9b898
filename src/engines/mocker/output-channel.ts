// Single-consumer queue between the scheduler loop (producer) and one request's async iterator.
import type { LLMEngineOutput } from '../../protocols/index.js';

export class OutputChannel {
  private queue: LLMEngineOutput[] = [];
  private head = 0;
  private waiter: (() => void) | null = null;
  private closed = false;
  private failure: unknown = null;

  push(output: LLMEngineOutput): void {
    this.queue.push(output);
    this.wake();
  }

  /** No more outputs will come. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure = error ?? new Error('mocker failed');
    this.close();
  }

  /** Next queued output, or undefined if none is ready. Throws if the producer failed. */
  shift(): LLMEngineOutput | undefined {
    if (this.head < this.queue.length) {
      const out = this.queue[this.head++]!;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      }
      return out;
    }
    if (this.failure !== null) throw this.failure;
    return undefined;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Resolves once an output is queued or the channel closes. */
  wait(): Promise<void> {
    if (this.head < this.queue.length || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  private wake(): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w();
    }
  }
}
