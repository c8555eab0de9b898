// ZMQ event plane without a broker: each publishing process binds one PUB socket and records an
// EventChannel per subject in discovery (`v1/event_channels/{scope}/topic/{topic}/{id:x}`);
// subscribers watch those records and connect a SUB socket to every publisher. Messages are
// two frames: [subject, payload].
import { Publisher, Subscriber } from 'zeromq';
import {
  decodeEventChannel,
  EVENT_CHANNELS_BUCKET,
  encodeEventChannel,
  eventChannelKey,
  KeyExistsError,
  watchRecords,
  type DiscoveryBackend,
  type Lease,
} from '../discovery/index.js';
import type { PlaneStatus } from '../plane-status.js';
import type { EventPlane } from './types.js';

export interface ZmqEventPlaneOptions {
  backend: DiscoveryBackend;
  /** The lease publishers register their channels under (the worker's primary lease). */
  lease: () => Promise<Lease>;
  /** The host published for this process's PUB socket. */
  advertiseHost: string;
  /** Where the PUB socket binds; all interfaces when unset. */
  bindHost?: string;
  /** Where a subscriber reports losing and regaining a publisher it is connected to. */
  planes?: PlaneStatus;
}

/** ZMQ binds to addresses, not names: a host name binds all interfaces (it is still what others dial). */
const zmqBindAddress = (host: string | undefined): string => (host !== undefined && /^[\d.]+$/.test(host) ? host : '0.0.0.0');

function splitSubject(subject: string): { scope: string; topic: string } {
  const dot = subject.lastIndexOf('.');
  return dot < 0 ? { scope: '', topic: subject } : { scope: subject.slice(0, dot), topic: subject.slice(dot + 1) };
}

export class ZmqEventPlane implements EventPlane {
  readonly kind = 'zmq';
  private publisher: Promise<{ socket: Publisher; endpoint: string }> | null = null;
  private readonly registered = new Map<string, Promise<void>>();
  private sending: Promise<void> = Promise.resolve();
  /** Messages waiting for their turn on the PUB socket, in publish order. */
  private readonly outbox: { ready: Promise<void>; subject: string; payload: Uint8Array | string }[] = [];
  private draining = false;
  private readonly subscriptions = new Set<() => void>();

  constructor(private readonly opts: ZmqEventPlaneOptions) {}

  publish(subject: string, payload: Uint8Array | string): void {
    this.outbox.push({ ready: this.channelFor(subject), subject, payload });
    if (this.draining) return;
    this.draining = true;
    this.sending = this.drain();
  }

  /**
   * ZMQ sockets take one send at a time: one loop sends the queued messages in order (a chain of
   * promises per message cost 2.5 times the send itself). A message that cannot go is dropped.
   */
  private async drain(): Promise<void> {
    const outbox = this.outbox;
    let i = 0;
    try {
      for (; i < outbox.length; i++) {
        const { ready, subject, payload } = outbox[i]!;
        try {
          await ready;
          const { socket } = await this.publisher!;
          await socket.send([subject, payload]);
        } catch {
          // Dropped, as events are when no one can take them.
        }
        // A loop that never ends under steady load must not keep what it sent.
        if (i >= 1023) {
          outbox.splice(0, i + 1);
          i = -1;
        }
      }
    } finally {
      outbox.splice(0, i);
      this.draining = false;
    }
  }

  announce(subject: string): Promise<void> {
    return this.channelFor(subject);
  }

  async subscribe(subject: string, handler: (payload: Buffer) => void): Promise<() => void> {
    const { scope, topic } = splitSubject(subject);
    const socket = new Subscriber();
    socket.subscribe(subject);
    const connected = new Map<string, string>();
    const publisher = (endpoint: string) => this.opts.planes?.connection('events', `ZMQ event publisher ${endpoint}`);
    const known = (endpoint: string): boolean => [...connected.values()].includes(endpoint);
    // ZMQ reconnects by itself; its socket events say when a publisher was lost and when it is back.
    socket.events.on('disconnect', ({ address }) => {
      if (known(address)) publisher(address)?.lost('connection closed');
    });
    socket.events.on('connect', ({ address }) => publisher(address)?.restored());
    void (async () => {
      for await (const [, payload] of socket) handler(payload!);
    })().catch(() => undefined);
    const unwatch = await watchRecords(this.opts.backend, `${EVENT_CHANNELS_BUCKET}/${scope}/topic/${topic}/`, decodeEventChannel, {
      onPut: (key, rec) => {
        if (connected.get(key) === rec.endpoint) return;
        connected.set(key, rec.endpoint);
        socket.connect(rec.endpoint);
      },
      onDelete: (key) => {
        const endpoint = connected.get(key);
        connected.delete(key);
        if (!endpoint || known(endpoint)) return;
        socket.disconnect(endpoint);
        publisher(endpoint)?.gone();
      },
    });
    const stop = (): void => {
      unwatch();
      socket.close();
      this.subscriptions.delete(stop);
    };
    this.subscriptions.add(stop);
    return stop;
  }

  async close(): Promise<void> {
    for (const stop of [...this.subscriptions]) stop();
    await this.sending;
    if (this.publisher) (await this.publisher).socket.close();
    this.publisher = null;
  }

  private channelFor(subject: string): Promise<void> {
    let ready = this.registered.get(subject);
    if (!ready) {
      ready = this.register(subject);
      this.registered.set(subject, ready);
    }
    return ready;
  }

  private async register(subject: string): Promise<void> {
    this.publisher ??= (async () => {
      const socket = new Publisher();
      await socket.bind(`tcp://${zmqBindAddress(this.opts.bindHost)}:0`);
      const port = new URL(socket.lastEndpoint!.replace('tcp://', 'http://')).port;
      return { socket, endpoint: `tcp://${this.opts.advertiseHost}:${port}` };
    })();
    const { endpoint } = await this.publisher;
    const lease = await this.opts.lease();
    const { scope, topic } = splitSubject(subject);
    const key = eventChannelKey(scope, topic, lease.id);
    await lease.create(key, encodeEventChannel({ scope, topic, instanceId: lease.id, endpoint })).catch((err: unknown) => {
      if (!(err instanceof KeyExistsError)) throw err;
    });
  }
}
