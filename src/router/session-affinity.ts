// Session affinity (`--router-session-affinity-ttl-secs`, reference/disagg-router.md §3.1): the
// requests of one session go to the worker its first dispatched request went to, so the session's
// growing prefix stays in one KV cache. The TTL is an idle timeout: a session with requests in
// flight never expires, and the clock restarts when its last one ends.
// - hard: the bound worker takes the session's requests, busy or not; only when it is gone (left
//   discovery or marked down) is the binding dropped and the next request chosen normally.
// - soft: the binding is advisory: a bound worker the busy thresholds find busy is passed over,
//   and the session moves to the worker chosen instead once that dispatch returns a stream.
import { OverloadedError, ValidationError } from '../protocols/index.js';

export type SessionAffinityMode = 'hard' | 'soft';

/** Upstream's limits. */
export const MAX_SESSION_ID_BYTES = 256;
export const MAX_SESSIONS = 65_536;
const MAX_SWEEP_INTERVAL_MS = 30_000;

export interface SessionAffinityOptions {
  ttlSecs: number;
  mode: SessionAffinityMode;
  maxSessions?: number;
  now?: () => number;
}

interface Binding {
  worker: bigint;
  /** When the binding was last used or its last request ended. */
  touched: number;
  /** Requests of the session in flight. */
  active: number;
}

/** Told of every binding this router makes, for its replicas (shared-state/session-affinity-sync.ts). */
export type BindingListener = (sessionId: string, worker: bigint) => void;

export class SessionAffinity {
  readonly mode: SessionAffinityMode;
  private readonly bindings = new Map<string, Binding>();
  private readonly ttlMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;
  private readonly sweepEveryMs: number;
  private lastSweep: number;
  private listener: BindingListener | null = null;

  constructor(opts: SessionAffinityOptions) {
    this.mode = opts.mode;
    this.ttlMs = opts.ttlSecs * 1000;
    this.maxSessions = opts.maxSessions ?? MAX_SESSIONS;
    this.now = opts.now ?? Date.now;
    this.sweepEveryMs = Math.min(this.ttlMs, MAX_SWEEP_INTERVAL_MS);
    this.lastSweep = this.now();
  }

  get size(): number {
    return this.bindings.size;
  }

  /** Replaces the listener told of local bindings (one replica sync at a time). */
  onBind(listener: BindingListener | null): void {
    this.listener = listener;
  }

  /** A request's session id, checked against upstream's limit. */
  static validId(sessionId: string): string {
    if (Buffer.byteLength(sessionId, 'utf8') > MAX_SESSION_ID_BYTES) {
      throw new ValidationError(`session affinity ID must not exceed ${MAX_SESSION_ID_BYTES} bytes`);
    }
    return sessionId;
  }

  /** The live binding's worker, or null (expired bindings go here). */
  boundWorker(sessionId: string): bigint | null {
    const b = this.live(sessionId);
    return b ? b.worker : null;
  }

  /** Drops a binding whose worker is gone. */
  unbind(sessionId: string): void {
    this.bindings.delete(sessionId);
  }

  /** Throws when a new session would exceed the entry limit. */
  assertRoom(sessionId: string): void {
    this.sweep();
    if (this.bindings.has(sessionId) || this.bindings.size < this.maxSessions) return;
    throw new OverloadedError('session affinity entry limit reached');
  }

  /**
   * A request of the session was dispatched to `worker`: (re)binds it there and counts it in
   * flight. Returns the function to call when its stream ends.
   */
  dispatched(sessionId: string, worker: bigint): () => void {
    const now = this.now();
    let b = this.live(sessionId);
    if (!b || b.worker !== worker) {
      // A rebind starts afresh: requests still running on the old worker end on the old binding.
      b = { worker, touched: now, active: 0 };
      this.bindings.set(sessionId, b);
      this.listener?.(sessionId, worker);
    }
    b.active++;
    b.touched = now;
    const binding = b;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      binding.active--;
      binding.touched = this.now();
      if (this.bindings.get(sessionId) === binding) this.listener?.(sessionId, worker);
    };
  }

  /**
   * A replica's binding. The first live binding wins: one to another worker is ignored, one to the
   * same worker refreshes it.
   */
  applyRemote(sessionId: string, worker: bigint): void {
    const b = this.live(sessionId);
    if (b) {
      if (b.worker === worker) b.touched = this.now();
      return;
    }
    if (this.bindings.size >= this.maxSessions) return;
    this.bindings.set(sessionId, { worker, touched: this.now(), active: 0 });
  }

  private live(sessionId: string): Binding | undefined {
    const b = this.bindings.get(sessionId);
    if (b && this.expired(b, this.now())) {
      this.bindings.delete(sessionId);
      return undefined;
    }
    return b;
  }

  private expired(b: Binding, now: number): boolean {
    return b.active === 0 && now - b.touched >= this.ttlMs;
  }

  /** Drops idle expired bindings, at most every min(TTL, 30 s) (upstream's reaper period). */
  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < this.sweepEveryMs) return;
    this.lastSweep = now;
    for (const [id, b] of this.bindings) if (this.expired(b, now)) this.bindings.delete(id);
  }
}
