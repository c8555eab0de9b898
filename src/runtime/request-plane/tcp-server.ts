// Worker side of the TCP request plane: one listening socket shared by every endpoint and instance
// of this process; frames are acked in arrival order.
import type { AddressInfo, Server, Socket } from 'node:net';
import { encodeAck, RequestFrameDecoder } from '../codecs/index.js';
import type { EndpointId, Transport } from '../discovery/index.js';
import { advertiseHost, isLoopbackAddress, joinHostPort } from './advertise-host.js';
import { DRAIN_GRACE_MS, Ingress, type IngressLogger } from './ingress.js';
import { createSocketServer, type TcpTls } from './tcp-tls.js';
import { instancePath, type EndpointHandler, type RequestPlaneServer } from './types.js';

export interface TcpServerOptions {
  /** Bind address; all interfaces when unset. */
  bindHost?: string;
  /** `DYN_TCP_RPC_PORT`; any free port when 0. */
  port?: number;
  /** The host published in discovery. */
  advertiseHost?: string;
  maxMessageSize: number;
  logger?: IngressLogger;
  /** TLS for this listener and for the response streams its handlers dial back. */
  tls?: TcpTls;
  /** How long running requests may finish once the server closes (unset: DRAIN_GRACE_MS). */
  shutdownGraceMs?: number;
}

export class TcpRequestPlaneServer implements RequestPlaneServer {
  readonly kind = 'tcp';
  private readonly ingress: Ingress;
  private server: Server | null = null;
  private address: string | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly opts: TcpServerOptions) {
    this.ingress = new Ingress(opts.logger, opts.tls);
  }

  /** Where the listener is bound, once it listens. */
  get boundAddress(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async serve(endpoint: EndpointId, instanceId: bigint, handler: EndpointHandler): Promise<Transport> {
    const address = await this.listen();
    const path = instancePath(endpoint.endpoint, instanceId);
    this.ingress.add(path, handler);
    return { tcp: `${address}/${path}` };
  }

  unserve(endpoint: EndpointId, instanceId: bigint): void {
    this.ingress.remove(instancePath(endpoint.endpoint, instanceId));
  }

  async close(): Promise<void> {
    await this.ingress.close(this.opts.shutdownGraceMs ?? DRAIN_GRACE_MS);
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(): Promise<string> {
    if (this.address) return this.address;
    const server = createSocketServer((socket) => this.onConnection(socket), this.opts.tls);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // Exclusive: in a library user's node:cluster process a shared port would hand requests to siblings.
      server.listen({ port: this.opts.port ?? 0, host: this.opts.bindHost ?? '0.0.0.0', exclusive: true }, () => resolve());
    });
    const bound = server.address() as AddressInfo;
    // Whoever reaches this port can run requests on this worker: fine on a private network, worth
    // one line when nothing but the network protects it.
    if (!this.opts.tls && !isLoopbackAddress(bound.address)) {
      this.opts.logger?.warn(
        { address: joinHostPort(bound.address, bound.port) },
        'the TCP request plane listens beyond loopback without TLS: anyone who can reach this address can send this worker requests; set --tcp-tls-cert-path and --tcp-tls-key-path, or DYN_TCP_RPC_HOST to a private address',
      );
    }
    this.address = joinHostPort(this.opts.advertiseHost ?? advertiseHost(), bound.port);
    return this.address;
  }

  private onConnection(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const decoder = new RequestFrameDecoder(this.opts.maxMessageSize);
    socket.on('data', (chunk: Buffer) => {
      let frames;
      try {
        frames = decoder.push(chunk);
      } catch (err) {
        this.opts.logger?.warn({ err: (err as Error).message }, 'request-plane: dropping connection');
        socket.destroy();
        return;
      }
      // The acks of one read leave in one write.
      socket.cork();
      for (const frame of frames) socket.write(encodeAck(this.ingress.accept(frame.path, frame.headers, frame.payload)));
      socket.uncork();
    });
  }
}
