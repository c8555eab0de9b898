// The router queue (reference/router.md §4.5): when every worker is over the prefill threshold a
// request waits here, and is released in policy order as load frees.
//   fcfs: priority_jump - arrival offset (s), higher first (good for tail TTFT)
//   wspt: (1 + priority_jump) / max(1, uncached prompt tokens), higher first (Smith's rule: mean TTFT)
//   lcfs: latest arrival first (for comparison only)
import { CancelledError, followAbort, unfollowAbort, type AbortFollower, type QueuePolicy } from '../../protocols/index.js';

export interface QueuedRequest {
  priorityJump: number;
  /** Prompt tokens the chosen worker would still have to compute. */
  uncachedTokens: number;
  signal?: AbortSignal;
}

interface Waiter {
  key: number;
  seq: number;
  admit: () => void;
}

export class PendingQueue {
  private heap: Waiter[] = [];
  private seq = 0;
  private readonly origin: number;

  constructor(
    readonly policy: QueuePolicy,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.origin = now();
  }

  get size(): number {
    return this.heap.length;
  }

  /** The ordering key of a request arriving now; higher is served first. */
  priorityOf(req: QueuedRequest): number {
    const arrivalSecs = (this.now() - this.origin) / 1000;
    switch (this.policy) {
      case 'fcfs':
        return req.priorityJump - arrivalSecs;
      case 'wspt':
        return (1 + req.priorityJump) / Math.max(1, req.uncachedTokens);
      case 'lcfs':
        return arrivalSecs;
    }
  }

  /** Resolves when released; rejects with CancelledError if the request is aborted first. */
  wait(req: QueuedRequest): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort: AbortFollower = {
        handleEvent: () => {
          this.remove(waiter);
          reject(new CancelledError());
        },
      };
      const waiter: Waiter = {
        key: this.priorityOf(req),
        seq: this.seq++,
        admit: () => {
          if (req.signal) unfollowAbort(req.signal, onAbort);
          resolve();
        },
      };
      if (req.signal?.aborted) return onAbort.handleEvent();
      if (req.signal) followAbort(req.signal, onAbort);
      this.push(waiter);
    });
  }

  /**
   * Releases the first waiter if `hasRoom()`. One per call: the released request adds load only
   * once it is dispatched, so callers release again as load frees (each first token, each end).
   */
  releaseOne(hasRoom: () => boolean): void {
    if (this.heap.length > 0 && hasRoom()) this.pop().admit();
  }

  private before(a: Waiter, b: Waiter): boolean {
    return a.key > b.key || (a.key === b.key && a.seq < b.seq);
  }

  private push(w: Waiter): void {
    const h = this.heap;
    h.push(w);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Waiter {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private siftDown(start: number): void {
    const h = this.heap;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < h.length && this.before(h[l]!, h[best]!)) best = l;
      if (r < h.length && this.before(h[r]!, h[best]!)) best = r;
      if (best === i) return;
      [h[i], h[best]] = [h[best]!, h[i]!];
      i = best;
    }
  }

  private remove(w: Waiter): void {
    const i = this.heap.indexOf(w);
    if (i < 0) return;
    const last = this.heap.pop()!;
    if (i < this.heap.length) {
      this.heap[i] = last;
      this.siftDown(i);
      let j = i;
      while (j > 0 && this.before(this.heap[j]!, this.heap[(j - 1) >> 1]!)) {
        const p = (j - 1) >> 1;
        [this.heap[j], this.heap[p]] = [this.heap[p]!, this.heap[j]!];
        j = p;
      }
    }
  }
}
