// The NATS request plane (reference/router.md §9.3): a worker subscribes its instance subject
// `{slug(ns_component)}.{endpoint}-{instance_id:x}`; the caller sends the two-part payload there as
// a NATS request whose reply is the ack. Responses still stream back over TCP.
import { headers as natsHeaders, type Subscription } from '@nats-io/transport-node';
import { WorkerLostError } from '../../protocols/index.js';
import { isRejectionAck, PING_HEADER } from '../codecs/index.js';
import type { EndpointId, Transport } from '../discovery/index.js';
import { instanceIdHex } from '../ids.js';
import { natsConnection, type NatsTls } from '../nats-connection.js';
import type { TcpTls } from './tcp-tls.js';
import { DRAIN_GRACE_MS, Ingress, type IngressLogger } from './ingress.js';
import { instancePath, type EndpointHandler, type RequestPlaneServer } from './types.js';

/** Upstream slug: lowercase, anything but `a-z0-9-_` becomes `_`. */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
}

export function natsInstanceSubject(ep: EndpointId, instanceId: bigint): string {
  return `${slug(`${ep.namespace}_${ep.component}`)}.${ep.endpoint}-${instanceIdHex(instanceId)}`;
}

const ACK_TIMEOUT_MS = 10_000;

export class NatsRequestPlaneServer implements RequestPlaneServer {
  readonly kind = 'nats';
  private readonly ingress: Ingress;
  private readonly subs = new Map<string, Subscription>();

  constructor(
    private readonly server: string,
    logger?: IngressLogger,
    private readonly tls?: NatsTls,
    /** The response streams still go over TCP: TLS for dialing callers back. */
    tcpTls?: TcpTls,
    /** How long running requests may finish once the server closes. */
    private readonly shutdownGraceMs = DRAIN_GRACE_MS,
  ) {
    this.ingress = new Ingress(logger, tcpTls);
  }

  async serve(endpoint: EndpointId, instanceId: bigint, handler: EndpointHandler): Promise<Transport> {
    const nc = await natsConnection(this.server, this.tls);
    const subject = natsInstanceSubject(endpoint, instanceId);
    const path = instancePath(endpoint.endpoint, instanceId);
    this.ingress.add(path, handler);
    const sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        const hdrs: Record<string, string> = {};
        for (const [k, v] of msg.headers ?? []) hdrs[k.toLowerCase()] = v[0] ?? '';
        const ack = this.ingress.accept(path, hdrs, Buffer.from(msg.data));
        msg.respond(ack ? Buffer.from(ack) : new Uint8Array(0));
      },
    });
    this.subs.set(subject, sub);
    await nc.flush();
    return { nats_tcp: subject };
  }

  unserve(endpoint: EndpointId, instanceId: bigint): void {
    const subject = natsInstanceSubject(endpoint, instanceId);
    this.subs.get(subject)?.unsubscribe();
    this.subs.delete(subject);
    this.ingress.remove(instancePath(endpoint.endpoint, instanceId));
  }

  async close(): Promise<void> {
    await this.ingress.close(this.shutdownGraceMs);
    for (const sub of this.subs.values()) sub.unsubscribe();
    this.subs.clear();
  }
}

export class NatsRequestSender {
  constructor(
    private readonly server: string,
    private readonly tls?: NatsTls,
  ) {}

  async send(subject: string, headers: Record<string, string>, payload: Buffer): Promise<void> {
    const nc = await natsConnection(this.server, this.tls);
    const h = natsHeaders();
    for (const [k, v] of Object.entries(headers)) h.set(k, v);
    let reply;
    try {
      reply = await nc.request(subject, payload, { timeout: ACK_TIMEOUT_MS, headers: h });
    } catch (err) {
      throw new WorkerLostError(`worker on NATS subject ${subject} did not accept the request: ${(err as Error).message}`);
    }
    const text = Buffer.from(reply.data).toString('utf8');
    if (isRejectionAck(text)) throw new WorkerLostError(text);
  }

  /** True when the worker subscribed to `subject` answers a ping within `timeoutMs` (no responders, a timeout: false). */
  async ping(subject: string, timeoutMs: number): Promise<boolean> {
    const h = natsHeaders();
    h.set(PING_HEADER, '1');
    try {
      const nc = await natsConnection(this.server, this.tls);
      await nc.request(subject, new Uint8Array(0), { timeout: timeoutMs, headers: h });
      return true;
    } catch {
      return false;
    }
  }
}
