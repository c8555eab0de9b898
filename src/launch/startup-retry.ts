// First contact: when etcd, NATS or the Kubernetes API cannot be reached at startup, say so in one
// line naming what was tried and the fix, then retry for `--connect-retry-secs` (DYN_CONNECT_RETRY_SECS)
// or give up at once, so a supervisor (Kubernetes, systemd) restarts the process. Other failures the
// operator can fix (a port in use, a bad flag value found late) are one line too, never retried.
import { ServiceUnreachableError } from '../protocols/index.js';
import { Backoff } from '../runtime/index.js';

/** A startup failure whose message is the whole story: told as one line, without a stack, and never retried. */
export class StartupFailedError extends Error {}

/** Why a listening socket could not be opened and what to do, for the codes an operator can act on. */
const LISTEN_FAILURES: Readonly<Record<string, { reason: string; fix: string }>> = {
  EADDRINUSE: { reason: 'address already in use', fix: 'stop what holds it or choose another port' },
  EACCES: { reason: 'permission denied', fix: 'ports below 1024 need privileges; choose another port' },
  EADDRNOTAVAIL: { reason: 'no such address on this host', fix: 'choose an address of this host, or 0.0.0.0' },
};

interface ListenError extends Error {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
}

function listenFailureLine(err: ListenError): string | null {
  const known = err.code === undefined ? undefined : LISTEN_FAILURES[err.code];
  if (known === undefined || (err.syscall !== 'listen' && err.syscall !== 'bind')) return null;
  return `cannot listen on ${err.address ?? '?'}:${err.port ?? '?'} (${known.reason}): ${known.fix}`;
}

/** The one line for a startup failure the operator can fix; null for anything else (a bug: log it whole). */
export function startupFailureLine(err: unknown): string | null {
  if (err instanceof ServiceUnreachableError) return `${err.message}: ${err.fix}`;
  if (err instanceof StartupFailedError) return err.message;
  return err instanceof Error ? listenFailureLine(err) : null;
}

export interface StartupRetryOptions {
  /** How long to keep retrying an unreachable service; 0 gives up at the first failure. */
  retrySecs: number;
  /** Told once, on the first failure that will be retried. */
  tell: (line: string) => void;
  /** Aborted once a shutdown signal arrived: stop retrying. */
  signal: AbortSignal;
}

/**
 * A startup failure already passed on to the process that tells the operator (a pool process hands
 * its primary the line): this process exits non-zero without a line of its own, so the line appears
 * once however many processes failed.
 */
export class StartupToldError extends Error {}

/** Thrown when retrying ran out: its message says so without repeating the line already told. */
export class StartupGaveUpError extends StartupFailedError {
  constructor(override readonly cause: ServiceUnreachableError, secs: number) {
    super(`still cannot reach ${cause.service} after ${secs} s; giving up`);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
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
      if (!(err instanceof ServiceUnreachableError) || opts.signal.aborted || opts.retrySecs === 0) throw err;
      if (!told) {
        opts.tell(`${startupFailureLine(err)}; retrying for up to ${opts.retrySecs} s`);
        told = true;
        deadline = Date.now() + opts.retrySecs * 1000;
      } else if (Date.now() >= deadline) {
        throw new StartupGaveUpError(err, opts.retrySecs);
      }
      await pause(Math.max(0, Math.min(backoff.next(), deadline - Date.now())), opts.signal);
      if (opts.signal.aborted) throw err;
    }
  }
}
