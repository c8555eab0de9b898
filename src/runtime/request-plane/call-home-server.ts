// Frontend side of response streams: a listening socket that workers dial back to. Each connection
// starts with a handshake naming the subject of a pending request; its frames then feed that request.
// Every request offers `keep_alive` (call-home-link.ts): a worker whose handshake takes it up keeps
// the connection, and after the stream's sentinel we release it and read the next handshake on it.
import { randomUUID } from 'node:crypto';
import type { AddressInfo, Server, Socket } from 'node:net';
import { InternalError, WorkerLostError } from '../../protocols/index.js';
import { AsyncQueue } from '../async-queue/index.js';
import {
  encodeTwoPartHeader,
  parseJsonLossless,
  parseStreamControl,
  parseStreamItemBody,
  TwoPartDecoder,
  type CallHomeInfo,
  type StreamItemBody,
  type TwoPartMessage,
} from '../codecs/index.js';
import { advertiseHost, joinHostPort } from './advertise-host.js';
import { errorFromDetail } from './error-detail.js';
import { createSocketServer, type TcpTls } from './tcp-tls.js';
import { readTwoPartMessages } from './two-part-reader.js';

/** One request waiting for, then receiving, its response stream. */
export class PendingStream {
  /** The response items, in arrival order; JSON never yields undefined. */
  readonly queue = new AsyncQueue<{} | null>();
  socket: Socket | null = null;
  private arrivalTimer: NodeJS.Timeout | null = null;
  /** The worker's handshake named this stream. */
  private called = false;
  private prologueSeen = false;
  private completed = false;
  private stopped = false;

  constructor(
    readonly subject: string,
    private readonly release: () => void,
    /** Items are parsed with integers beyond 2^53 kept as bigint. */
    private readonly exactIntegers = false,
  ) {}

  /** Fails the request if no worker calls back within `ms` (the worker may ack and then die). */
  expectCallWithin(ms: number, what: string): void {
    // The handshake may be read before the ack (they come on two connections).
    if (this.called) return;
    this.arrivalTimer = setTimeout(() => {
      this.queue.fail(new WorkerLostError(`${what} accepted the request but never opened its response stream`));
      this.release();
    }, ms);
  }

  attach(socket: Socket): void {
    if (this.arrivalTimer) clearTimeout(this.arrivalTimer);
    this.called = true;
    this.socket = socket;
  }

  onMessage(msg: TwoPartMessage): void {
    if (msg.header.length > 0) {
      if (parseStreamControl(msg.header) === 'sentinel') return;
      if (!this.prologueSeen) {
        this.prologueSeen = true;
        const prologue = JSON.parse(msg.header.toString('utf8')) as { error?: unknown };
        if (prologue.error !== null && prologue.error !== undefined) {
          this.queue.fail(errorFromDetail(describe(prologue.error), 'worker rejected the request'));
        }
      }
      return;
    }
    if (msg.body.length === 0) return;
    const wrapper = this.exactIntegers ? (parseJsonLossless(msg.body.toString('utf8')) as StreamItemBody) : parseStreamItemBody(msg.body);
    if (wrapper.data !== undefined) this.queue.push(wrapper.data);
    if (wrapper.complete_final) {
      this.completed = true;
      this.queue.end();
    }
  }

  onClose(): void {
    // A kept connection outlives the stream: nothing more of it goes there (a late stop included).
    this.socket = null;
    if (this.arrivalTimer) clearTimeout(this.arrivalTimer);
    if (this.completed || this.stopped) this.queue.end();
    else this.queue.fail(new WorkerLostError('worker connection lost: the response stream ended before completion'));
    this.release();
  }

  /** Asks the worker to stop (caller went away); the stream then ends quietly. */
  stop(): void {
    if (this.completed || this.stopped) return;
    this.stopped = true;
    if (this.arrivalTimer) clearTimeout(this.arrivalTimer);
    if (this.socket && !this.socket.destroyed) {
      this.socket.write(encodeTwoPartHeader('stop'));
      return;
    }
    this.queue.end();
    this.release();
  }

  /** Sending failed before any worker got the request. */
  abandon(err: Error): void {
    if (this.arrivalTimer) clearTimeout(this.arrivalTimer);
    this.queue.fail(err);
    this.release();
  }
}

/** A registered response stream and the call-home info that names it to the worker. */
export interface OpenedStream {
  stream: PendingStream;
  info: CallHomeInfo;
}

const RELEASE = encodeTwoPartHeader('release');

function release(socket: Socket): void {
  if (!socket.destroyed) socket.write(RELEASE);
}

function describe(error: unknown): string {
  return typeof error === 'string' ? error : JSON.stringify(error);
}

export class CallHomeServer {
  private server: Server | null = null;
  private listening: Promise<string> | null = null;
  /** Where workers dial, once the listener is up. */
  private address: string | null = null;
  private readonly pending = new Map<string, PendingStream>();
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly opts: {
      advertiseHost?: string;
      /** Bind address; all interfaces when unset. */
      bindHost?: string;
      maxMessageSize: number;
      tls?: TcpTls;
    },
  ) {}

  /** Where the listener is bound, once it listens. */
  get boundAddress(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  /**
   * Registers a pending stream and returns where the worker must dial: at once when the listener
   * is up (the caller's request can leave in the same turn), else once it is.
   */
  open(context: string, exactIntegers = false): OpenedStream | Promise<OpenedStream> {
    if (this.address !== null) return this.register(this.address, context, exactIntegers);
    return this.listen().then((address) => this.register(address, context, exactIntegers));
  }

  private register(address: string, context: string, exactIntegers: boolean): OpenedStream {
    const subject = randomUUID();
    const stream = new PendingStream(subject, () => this.pending.delete(subject), exactIntegers);
    this.pending.set(subject, stream);
    return { stream, info: { address, subject, context, stream_type: 'response', keep_alive: true } };
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = null;
    this.listening = null;
    this.address = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private listen(): Promise<string> {
    this.listening ??= new Promise((resolve, reject) => {
      const server = createSocketServer((socket) => this.onConnection(socket), this.opts.tls);
      this.server = server;
      server.once('error', reject);
      // Exclusive: a library user's node:cluster process would otherwise share the port with its
      // siblings and hand them this process's response streams.
      server.listen({ port: 0, host: this.opts.bindHost ?? '0.0.0.0', exclusive: true }, () => {
        const port = (server.address() as { port: number }).port;
        this.address = joinHostPort(this.opts.advertiseHost ?? advertiseHost(), port);
        resolve(this.address);
      });
    });
    return this.listening;
  }

  private onConnection(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    let stream: PendingStream | null = null;
    let kept = false;
    readTwoPartMessages(socket, new TwoPartDecoder(this.opts.maxMessageSize), (msg) => {
      if (!stream) {
        const handshake = JSON.parse(msg.header.toString('utf8')) as { subject?: string; keep_alive?: unknown };
        stream = this.pending.get(handshake.subject ?? '') ?? null;
        if (!stream) {
          socket.destroy();
          return false;
        }
        kept = handshake.keep_alive === true;
        stream.attach(socket);
        return true;
      }
      try {
        stream.onMessage(msg);
      } catch (err) {
        stream.abandon(new InternalError(`bad response frame from worker: ${(err as Error).message}`));
        socket.destroy();
        return false;
      }
      if (kept && msg.header.length > 0 && parseStreamControl(msg.header) === 'sentinel') {
        stream.onClose();
        stream = null;
        // After this turn: the items just read reach their consumer before the worker is woken.
        setImmediate(release, socket);
      }
      return true;
    });
    socket.on('close', () => {
      this.sockets.delete(socket);
      stream?.onClose();
    });
  }
}
