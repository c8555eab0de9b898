// Frontend side of the TCP request plane: one pipelined connection per worker address; acks come
// back in frame order.
import type { Socket } from 'node:net';
import { OverloadedError, WorkerLostError } from '../../protocols/index.js';
import { AckDecoder, encodeRequestFrame, isRejectionAck } from '../codecs/index.js';
import { splitAddress } from './call-home-sender.js';
import { dialSocket, type TcpTls } from './tcp-tls.js';

interface PendingAck {
  resolve(): void;
  reject(err: Error): void;
}

class WorkerConnection {
  private readonly acks: PendingAck[] = [];
  private readonly ready: Promise<void>;
  private socket: Socket;
  /** Frames sent in this event-loop turn wait for its end, to leave in one write. */
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };
  closed = false;

  constructor(readonly address: string, onClose: () => void, tls?: TcpTls) {
    const { host, port } = splitAddress(address);
    const dialed = dialSocket(host, port, tls);
    this.socket = dialed.socket;
    this.ready = new Promise((resolve, reject) => {
      this.socket.once(dialed.ready, resolve);
      this.socket.once('error', reject);
    });
    this.ready.catch(() => undefined);
    const decoder = new AckDecoder();
    this.socket.on('data', (chunk: Buffer) => {
      for (const text of decoder.push(chunk)) {
        const ack = this.acks.shift();
        if (!ack) continue;
        if (!isRejectionAck(text)) ack.resolve();
        else if (text.startsWith('Server overloaded:')) ack.reject(new OverloadedError(text));
        else ack.reject(new WorkerLostError(text));
      }
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      onClose();
      for (const ack of this.acks.splice(0)) ack.reject(new WorkerLostError(`connection to worker ${address} closed before it acknowledged the request`));
    });
  }

  async send(frame: Buffer): Promise<void> {
    try {
      await this.ready;
    } catch (err) {
      throw new WorkerLostError(`worker at ${this.address} is unreachable: ${(err as Error).message}`);
    }
    if (this.closed) throw new WorkerLostError(`connection to worker ${this.address} is closed`);
    return new Promise<void>((resolve, reject) => {
      this.acks.push({ resolve, reject });
      if (!this.corked) {
        this.corked = true;
        this.socket.cork();
        setImmediate(this.uncork);
      }
      this.socket.write(frame);
    });
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
    let conn = this.connections.get(address);
    if (!conn || conn.closed) {
      const fresh = new WorkerConnection(address, () => {
        if (this.connections.get(address) === fresh) this.connections.delete(address);
      }, this.tls);
      this.connections.set(address, fresh);
      conn = fresh;
    }
    return conn.send(encodeRequestFrame(path, { ...headers, 'x-endpoint-path': path }, payload));
  }

  close(): void {
    for (const conn of this.connections.values()) conn.close();
    this.connections.clear();
  }
}
