// Reconnect delays for discovery: exponential from 50 ms up to 5 s, with jitter so a fleet of
// workers does not retry in lockstep after an etcd restart.

export const BACKOFF_INITIAL_MS = 50;
export const BACKOFF_MAX_MS = 5000;

/** Delays 50 ms, 100 ms, 200 ms, ... capped at 5 s, each with up to 20% taken off at random. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = BACKOFF_INITIAL_MS,
    private readonly maxMs = BACKOFF_MAX_MS,
  ) {}

  /** The delay before the next retry. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt++, 30));
    return Math.round(base * (1 - Math.random() * 0.2));
  }

  /** After a success: start again from the initial delay. */
  reset(): void {
    this.attempt = 0;
  }
}

/** The same schedule in the immutable shape the etcd3 client's watch manager takes (`watchBackoff`). */
export interface ImmutableBackoff {
  readonly duration: number;
  next(context: unknown): ImmutableBackoff;
}

export function watchBackoff(attempt = 0): ImmutableBackoff {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** Math.min(attempt, 30));
  return { duration: Math.round(base * (1 - Math.random() * 0.2)), next: () => watchBackoff(attempt + 1) };
}
