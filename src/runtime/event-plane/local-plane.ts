// In-process event plane: subjects are keys of a process-wide table, one per scope, as the mem
// discovery backend keeps one store per scope.
import type { EventPlane } from './types.js';

/** One subscription: bytes always, values as they are when it takes them. */
interface Subscriber {
  bytes(payload: Buffer): void;
  value: ((value: unknown) => void) | null;
}

type Subscribers = Map<string, Set<Subscriber>>;

const scopes = new Map<string, Subscribers>();

export class LocalEventPlane implements EventPlane {
  readonly kind = 'inproc';
  private readonly mine = new Set<() => void>();
  private readonly subscribers: Subscribers;

  /** Planes created with the same `scope` in one process see each other's events. */
  constructor(scope = 'default') {
    let subscribers = scopes.get(scope);
    if (!subscribers) scopes.set(scope, (subscribers = new Map()));
    this.subscribers = subscribers;
  }

  publish(subject: string, payload: Uint8Array | string): void {
    const set = this.subscribers.get(subject);
    if (!set) return;
    const buf = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload);
    for (const subscriber of set) subscriber.bytes(buf);
  }

  publishValue(subject: string, value: unknown, encode: () => string): void {
    const set = this.subscribers.get(subject);
    if (!set) return;
    let buf: Buffer | null = null;
    for (const subscriber of set) {
      if (subscriber.value) subscriber.value(value);
      else subscriber.bytes((buf ??= Buffer.from(encode())));
    }
  }

  hasSubscribers(subject: string): boolean {
    return (this.subscribers.get(subject)?.size ?? 0) > 0;
  }

  async subscribe(subject: string, handler: (payload: Buffer) => void): Promise<() => void> {
    return this.add(subject, { bytes: handler, value: null });
  }

  async subscribeValues(subject: string, onValue: (value: unknown) => void, onBytes: (payload: Buffer) => void): Promise<() => void> {
    return this.add(subject, { bytes: onBytes, value: onValue });
  }

  private add(subject: string, subscriber: Subscriber): () => void {
    let set = this.subscribers.get(subject);
    if (!set) this.subscribers.set(subject, (set = new Set()));
    set.add(subscriber);
    const off = (): void => {
      set.delete(subscriber);
      this.mine.delete(off);
    };
    this.mine.add(off);
    return off;
  }

  async close(): Promise<void> {
    for (const off of [...this.mine]) off();
  }
}
