// Frontend side of the TCP request plane: one pipelined connection per worker address; acks come
// back in frame order.
import type { Socket } from 'node:net';
import { OverloadedError, WorkerLostError } from '../../protocols/index.js';
import { AckDecoder, encodeRequestFrame, isRejectionAck, PING_HEADER, PING_PATH, requestFrameHead } from '../codecs/index.js';
import { splitAddress } from './call-home-link.js';
import { dialSocket, type TcpTls } from './tcp-tls.js';

/** A frame waiting for its ack: the ack's text, or the connection's end before it. */
interface PendingAck {
  acked(text: string): void;
  lost(err: Error): void;
}

const PING_FRAME = encodeRequestFrame(PING_PATH, { [PING_HEADER]: '1' }, Buffer.alloc(0));

class WorkerConnection {
  private readonly acks: PendingAck[] = [];
  private readonly ready: Promise<void>;
  private socket: Socket;
  /** Frames queued behind a busy worker leave together at the end of the event-loop turn. */
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };
  closed = false;
  /** The socket connected (and may have closed since). */
  private connected = false;

  constructor(readonly address: string, onClose: () => void, tls?: TcpTls) {
    const { host, port } = splitAddress(address);
    const dialed = dialSocket(host, port, tls);
    this.socket = dialed.socket;
    this.ready = new Promise((resolve, reject) => {
      this.socket.once(dialed.ready, resolve);
      this.socket.once('error', reject);
    });
    this.ready.then(() => (this.connected = true), () => undefined);
    const decoder = new AckDecoder();
    this.socket.on('data', (chunk: Buffer) => {
      for (const text of decoder.push(chunk)) this.acks.shift()?.acked(text);
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      onClose();
      for (const ack of this.acks.splice(0)) ack.lost(new WorkerLostError(`connection to worker ${address} closed before it acknowledged the request`));
    });
  }

  /**
   * One frame, as its pieces in order (written back to back, never copied together). On an open
   * connection it is written in this call, not after a wait for the connection.
   */
  send(frame: readonly Buffer[]): Promise<void> {
    if (this.connected && !this.closed) return this.sendOpen(frame);
    return this.opened().then(() => this.sendOpen(frame));
  }

  private sendOpen(frame: readonly Buffer[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.write(frame, {
        acked: (text) => {
          if (!isRejectionAck(text)) resolve();
          else if (text.startsWith('Server overloaded:')) reject(new OverloadedError(text));
          else reject(new WorkerLostError(text));
        },
        lost: reject,
      });
    });
  }

  /**
   * True when the worker acks a ping within `timeoutMs`, whatever the ack says. Acks come in frame
   * order, so a late ack still takes its place in the queue; only the answer is given up on.
   */
  async ping(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      this.opened().then(
        () => this.write([PING_FRAME], { acked: () => resolve(true), lost: () => resolve(false) }),
        () => resolve(false),
      );
    });
    return answered.finally(() => clearTimeout(timer));
  }

  private async opened(): Promise<void> {
    try {
      await this.ready;
    } catch (err) {
      throw new WorkerLostError(`worker at ${this.address} is unreachable: ${(err as Error).message}`);
    }
    if (this.closed) throw new WorkerLostError(`connection to worker ${this.address} is closed`);
  }

  /**
   * A frame to a worker that has acknowledged everything sent before leaves at once (its pieces in
   * one write): nothing of this turn's later work comes before its start. While acks are due (a
   * busy connection), frames wait for the turn's end to leave in one write.
   */
  private write(frame: readonly Buffer[], ack: PendingAck): void {
    const idle = this.acks.length === 0;
    this.acks.push(ack);
    if (idle) {
      this.socket.cork();
      for (const piece of frame) this.socket.write(piece);
      this.socket.uncork();
      return;
    }
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      setImmediate(this.uncork);
    }
    for (const piece of frame) this.socket.write(piece);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** `[tcp://]host:port/{path}` → the worker's address and the endpoint path. */
export function splitTcpTransport(transport: string): { address: string; path: string } {
  const bare = transport.replace(/^tcp:\/\//, '');
  const slash = bare.indexOf('/');
  return slash < 0 ? { address: bare, path: '' } : { address: bare.slice(0, slash), path: bare.slice(slash + 1) };
}

export class TcpRequestSender {
  private readonly connections = new Map<string, WorkerConnection>();

  constructor(private readonly tls?: TcpTls) {}

  /** `transport` is `host:port/{instance_id:x}/{endpoint}`; resolves when the worker accepts. */
  send(transport: string, headers: Record<string, string>, payload: Buffer): Promise<void> {
    const { address, path } = splitTcpTransport(transport);
    return this.connection(address).send([requestFrameHead(path, { ...headers, 'x-endpoint-path': path }, payload.length), payload]);
  }

  /** True when the worker behind `transport` acks a ping within `timeoutMs`, on the connection requests take. */
  ping(transport: string, timeoutMs: number): Promise<boolean> {
    return this.connection(splitTcpTransport(transport).address).ping(timeoutMs);
  }

  private connection(address: string): WorkerConnection {
    const conn = this.connections.get(address);
    if (conn && !conn.closed) return conn;
    const fresh = new WorkerConnection(address, () => {
      if (this.connections.get(address) === fresh) this.connections.delete(address);
    }, this.tls);
    this.connections.set(address, fresh);
    return fresh;
  }

  close(): void {
    for (const conn of this.connections.values()) conn.close();
    this.connections.clear();
  }
}
