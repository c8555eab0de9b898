// First contact: when etcd, NATS or the Kubernetes API cannot be reached at startup, say so in one
// line naming what was tried and the fix, then retry for `--connect-retry-secs` (DYN_CONNECT_RETRY_SECS)
// or give up at once, so a supervisor (Kubernetes, systemd) restarts the process.
import { ServiceUnreachableError } from '../protocols/index.js';
import { Backoff } from '../runtime/index.js';

/** The one line for a startup failure the operator can fix; null for anything else (a bug: log it whole). */
export function startupFailureLine(err: unknown): string | null {
  return err instanceof ServiceUnreachableError ? `${err.message}: ${err.fix}` : null;
}

export interface StartupRetryOptions {
  /** How long to keep retrying an unreachable service; 0 gives up at the first failure. */
  retrySecs: number;
  /** Told once, on the first failure that will be retried. */
  tell: (line: string) => void;
  /** True once a shutdown signal arrived: stop retrying. */
  stopping: () => boolean;
}

/** A startup failure whose message is the whole story: told as one line, without a stack, and never retried. */
export class StartupFailedError extends Error {}

/**
 * A startup failure already passed on to the process that tells the operator (a pool process hands
 * its primary the unreachable service): this process exits non-zero without a line of its own, so
 * the line appears once however many processes failed.
 */
export class StartupToldError extends Error {}

/** Thrown when retrying ran out: its message says so without repeating the line already told. */
export class StartupGaveUpError extends StartupFailedError {
  constructor(override readonly cause: ServiceUnreachableError, secs: number) {
    super(`still cannot reach ${cause.service} after ${secs} s; giving up`);
  }
}

/** `start()`, again after a back-off while it fails on an unreachable service, for `retrySecs` from the first failure. */
export async function startRetrying<T>(start: () => Promise<T>, opts: StartupRetryOptions): Promise<T> {
  let deadline = 0;
  const backoff = new Backoff(250, 5000);
  let told = false;
  for (;;) {
    try {
      return await start();
    } catch (err) {
      const line = startupFailureLine(err);
      if (!line || opts.stopping()) throw err;
      if (opts.retrySecs === 0) throw err;
      if (!told) {
        opts.tell(`${line}; retrying for up to ${opts.retrySecs} s`);
        told = true;
        deadline = Date.now() + opts.retrySecs * 1000;
      } else if (Date.now() >= deadline) {
        throw new StartupGaveUpError(err as ServiceUnreachableError, opts.retrySecs);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(backoff.next(), deadline - Date.now()))));
    }
  }
}
