// In-process event plane: subjects are keys of one process-wide table.
import type { EventPlane } from './types.js';

const subscribers = new Map<string, Set<(payload: Buffer) => void>>();

export class LocalEventPlane implements EventPlane {
  readonly kind = 'inproc';
  private readonly mine = new Set<() => void>();

  publish(subject: string, payload: Uint8Array | string): void {
    const set = subscribers.get(subject);
    if (!set) return;
    const buf = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload);
    for (const handler of set) handler(buf);
  }

  async subscribe(subject: string, handler: (payload: Buffer) => void): Promise<() => void> {
    let set = subscribers.get(subject);
    if (!set) subscribers.set(subject, (set = new Set()));
    set.add(handler);
    const off = (): void => {
      set.delete(handler);
      this.mine.delete(off);
    };
    this.mine.add(off);
    return off;
  }

  async close(): Promise<void> {
    for (const off of [...this.mine]) off();
  }
}
