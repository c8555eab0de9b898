// Router-side load per instance: requests in flight and prompt tokens not yet prefilled (from
// dispatch until the first output). Least-loaded routing and busy detection read it.
import type { LLMEngineOutput } from '../protocols/index.js';

interface InstanceLoad {
  inflight: number;
  prefillTokens: number;
}

export class LoadTracker {
  private readonly loads = new Map<bigint, InstanceLoad>();

  inflight(id: bigint): number {
    return this.loads.get(id)?.inflight ?? 0;
  }

  prefillTokens(id: bigint): number {
    return this.loads.get(id)?.prefillTokens ?? 0;
  }

  /** Counts a dispatched request; returns the callbacks that end its phases (each effective once). */
  start(id: bigint, promptTokens: number): { firstOutput(): void; end(): void } {
    let load = this.loads.get(id);
    if (!load) this.loads.set(id, (load = { inflight: 0, prefillTokens: 0 }));
    const l = load;
    l.inflight++;
    l.prefillTokens += promptTokens;
    let prefilling = true;
    let open = true;
    const firstOutput = (): void => {
      if (!prefilling) return;
      prefilling = false;
      l.prefillTokens -= promptTokens;
    };
    return {
      firstOutput,
      end: () => {
        if (!open) return;
        open = false;
        firstOutput();
        l.inflight--;
      },
    };
  }
}

/** Observers of one routed request's stream. */
export interface StreamObserver<Out = LLMEngineOutput> {
  /** Each output as it passes (the first one marks the end of prefill). */
  onOutput(out: Out): void;
  /** Once: the stream finished, failed (with `error`), or its consumer stopped early. */
  onEnd(error?: unknown): void;
}

/** Passes a stream through unchanged while reporting its outputs and its end. */
export function observeStream<Out>(stream: AsyncIterable<Out>, observer: StreamObserver<Out>): AsyncIterable<Out> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Out> {
      let inner: AsyncIterator<Out>;
      try {
        inner = stream[Symbol.asyncIterator]();
      } catch (err) {
        observer.onEnd(err);
        throw err;
      }
      let ended = false;
      const end = (error?: unknown): void => {
        if (ended) return;
        ended = true;
        observer.onEnd(error);
      };
      return {
        next: () =>
          inner.next().then(
            (r) => {
              if (r.done) end();
              else observer.onOutput(r.value);
              return r;
            },
            (err: unknown) => {
              end(err);
              throw err;
            },
          ),
        return: (value?: unknown) => {
          end();
          return inner.return ? inner.return(value) : Promise.resolve({ done: true as const, value: undefined });
        },
        throw: (err?: unknown) => {
          end();
          return inner.throw ? inner.throw(err) : Promise.reject(err);
        },
      };
    },
  };
}
