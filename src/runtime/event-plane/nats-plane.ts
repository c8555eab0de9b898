// NATS event plane: the subject is the NATS subject, the payload is sent as is.
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { natsConnection, type NatsTls } from '../nats-connection.js';
import type { EventPlane } from './types.js';

export class NatsEventPlane implements EventPlane {
  readonly kind = 'nats';
  private readonly subs = new Set<Subscription>();
  private nc: NatsConnection | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly server: string,
    private readonly tls?: NatsTls,
  ) {
    this.connect(250);
  }

  /** Publishers may start before nats-server: retry the first connection with backoff up to 5 s. */
  private connect(delayMs: number): void {
    natsConnection(this.server, this.tls)
      .then((nc) => (this.nc = nc))
      .catch(() => {
        if (this.closed) return;
        this.retry = setTimeout(() => this.connect(Math.min(delayMs * 2, 5000)), delayMs);
        this.retry.unref();
      });
  }

  /** Until the first connection is up, events are dropped rather than queued without bound. */
  publish(subject: string, payload: Uint8Array | string): void {
    this.nc?.publish(subject, payload);
  }

  async subscribe(subject: string, handler: (payload: Buffer) => void): Promise<() => void> {
    const nc = await natsConnection(this.server, this.tls);
    const sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (!err) handler(Buffer.from(msg.data));
      },
    });
    this.subs.add(sub);
    await nc.flush();
    return () => {
      sub.unsubscribe();
      this.subs.delete(sub);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    for (const sub of this.subs) sub.unsubscribe();
    this.subs.clear();
  }
}
