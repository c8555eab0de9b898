// Frontend side: one client for every transport a worker may publish (tcp, nats_tcp, inproc), so
// a frontend can route to upstream and dynamo-ts workers of any request plane at once.
import { followAbort, unfollowAbort, UnavailableError, type AbortFollower } from '../../protocols/index.js';
import { startedQueueStream, type OpenedQueue } from '../async-queue/index.js';
import { PAYLOAD_CODECS, buildRequestControl, encodeTwoPart } from '../codecs/index.js';
import type { EndpointInstance } from '../discovery/index.js';
import { CallHomeServer, type OpenedStream } from './call-home-server.js';
import { dialable, type DialableTransport } from './dialable.js';
import { streamLocal } from './local-plane.js';
import { NatsRequestSender } from './nats-plane.js';
import { probeInstance, type PingSenders } from './probe.js';
import { TcpRequestSender } from './tcp-sender.js';
import type { TcpTls } from './tcp-tls.js';
import type { NatsTls } from '../nats-connection.js';
import type { CallContext, RequestPlaneClient } from './types.js';

export interface RequestClientOptions {
  /** For `nats_tcp` transports. */
  natsServer: string;
  maxMessageSize: number;
  /** The host workers dial back to. */
  advertiseHost?: string;
  /** Where the response-stream listener binds; all interfaces when unset. */
  bindHost?: string;
  /** TLS for dialing TCP workers and for the response-stream listener (--tcp-tls-*). */
  tcpTls?: TcpTls;
  /** TLS for the NATS connection of `nats_tcp` transports (--nats-tls-*). */
  natsTls?: NatsTls;
  /** How long a worker may take to open its response stream after accepting. */
  callHomeTimeoutMs?: number;
}

/** How long a probe waits for a worker's answer unless told otherwise. */
const PROBE_TIMEOUT_MS = 2_000;

/** Streams one call over a transport kind, to the address the worker published for it. */
type Dial = (address: string, target: EndpointInstance, request: unknown, ctx: CallContext) => AsyncIterable<unknown>;

export class MultiTransportClient implements RequestPlaneClient {
  private readonly callHome: CallHomeServer;
  private readonly tcp: TcpRequestSender;
  private nats: NatsRequestSender | null = null;
  private readonly dials: { readonly [K in DialableTransport]: Dial } = {
    inproc: (name, _target, request, ctx) => streamLocal(name, request, ctx),
    tcp: (address, target, request, ctx) => this.remote(target, request, ctx, (h, p) => this.tcp.send(address, h, p)),
    nats_tcp: (subject, target, request, ctx) => {
      const nats = this.natsSender();
      return this.remote(target, request, ctx, (h, p) => nats.send(subject, h, p));
    },
  };
  private readonly pingSenders: PingSenders;

  constructor(private readonly opts: RequestClientOptions) {
    const { advertiseHost, bindHost, maxMessageSize, tcpTls } = opts;
    this.callHome = new CallHomeServer({ advertiseHost, bindHost, maxMessageSize, tls: tcpTls });
    this.tcp = new TcpRequestSender(tcpTls);
    this.pingSenders = { tcp: this.tcp, nats: () => this.natsSender() };
  }

  stream(target: EndpointInstance, request: unknown, ctx: CallContext): AsyncIterable<unknown> {
    const route = dialable(target.transport);
    if (!route) {
      throw new UnavailableError(`worker ${target.instanceId.toString(16)} publishes a transport this frontend cannot use: ${JSON.stringify(target.transport)}`);
    }
    return this.dials[route.kind](route.address, target, request, ctx);
  }

  probe(target: EndpointInstance, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
    return probeInstance(target, this.pingSenders, timeoutMs);
  }

  private natsSender(): NatsRequestSender {
    return (this.nats ??= new NatsRequestSender(this.opts.natsServer, this.opts.natsTls));
  }

  async close(): Promise<void> {
    this.tcp.close();
    await this.callHome.close();
  }

  /**
   * The call's response stream: the call-home queue, once the request is sent. The request leaves
   * now, not at the stream's first pull, so the worker's turn no longer waits for the caller's own
   * work up to its first read (opening its response, say). An answer nobody pulls is read to its end;
   * a failure to send is the stream's, at its first pull.
   */
  private remote(
    target: EndpointInstance,
    request: unknown,
    ctx: CallContext,
    send: (headers: Record<string, string>, payload: Buffer) => Promise<void>,
  ): AsyncIterable<unknown> {
    return startedQueueStream(this.call(target, request, ctx, send));
  }

  /**
   * Registers the response stream, sends the request, and gives the stream's queue once the worker
   * accepts. Once the response listener is up, the request is written in this call (on an open
   * connection), before the caller's own work that follows it.
   */
  private call(
    target: EndpointInstance,
    request: unknown,
    ctx: CallContext,
    send: (headers: Record<string, string>, payload: Buffer) => Promise<void>,
  ): Promise<OpenedQueue<{} | null>> {
    const opened = this.callHome.open(ctx.requestId, ctx.exactIntegers === true);
    if (opened instanceof Promise) return opened.then((o) => this.sendCall(o, target, request, ctx, send));
    return this.sendCall(opened, target, request, ctx, send);
  }

  private async sendCall(
    { stream, info }: OpenedStream,
    target: EndpointInstance,
    request: unknown,
    ctx: CallContext,
    send: (headers: Record<string, string>, payload: Buffer) => Promise<void>,
  ): Promise<OpenedQueue<{} | null>> {
    const onAbort: AbortFollower = { handleEvent: () => stream.stop() };
    followAbort(ctx.signal, onAbort);
    stream.queue.whenClosed((how) => {
      unfollowAbort(ctx.signal, onAbort);
      // Leaving early (consumer break) cancels the work on the worker.
      if (how === 'returned') stream.stop();
    });
    const codec = target.requestPlaneCodec;
    const body = PAYLOAD_CODECS[codec].encode(request, ctx.exactIntegers === true);
    const header = JSON.stringify(buildRequestControl(ctx.requestId, codec, info, ctx.metadata));
    try {
      await send({ ...ctx.headers, 'request-id': ctx.requestId }, encodeTwoPart(header, body));
    } catch (err) {
      unfollowAbort(ctx.signal, onAbort);
      stream.abandon(err as Error);
      throw err;
    }
    stream.expectCallWithin(this.opts.callHomeTimeoutMs ?? 10_000, `worker ${target.instanceId.toString(16)}`);
    return { queue: stream.queue };
  }
}
