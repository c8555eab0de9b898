// Does a worker instance answer? A ping over the transport its requests take, answered by the
// worker process itself: a connect alone is answered by the kernel of a stopped (SIGSTOP) process
// too. Used to confirm a silent worker is unresponsive and to bring a down one back into routing.
import type { EndpointInstance } from '../discovery/index.js';
import { dialable, type DialableTransport } from './dialable.js';
import { localHandler } from './local-plane.js';
import type { NatsRequestSender } from './nats-plane.js';
import type { TcpRequestSender } from './tcp-sender.js';

/** The senders of the client whose connections the pings take. */
export interface PingSenders {
  readonly tcp: TcpRequestSender;
  nats(): NatsRequestSender;
}

/** In-process: the endpoint is still served. TCP: a ping frame is acked. NATS: a ping request is answered. */
const PINGS: { readonly [K in DialableTransport]: (address: string, senders: PingSenders, timeoutMs: number) => Promise<boolean> } = {
  inproc: async (name) => localHandler(name) !== undefined,
  tcp: (transport, senders, timeoutMs) => senders.tcp.ping(transport, timeoutMs),
  nats_tcp: (subject, senders, timeoutMs) => senders.nats().ping(subject, timeoutMs),
};

export async function probeInstance(target: EndpointInstance, senders: PingSenders, timeoutMs: number): Promise<boolean> {
  const route = dialable(target.transport);
  return route ? PINGS[route.kind](route.address, senders, timeoutMs) : false;
}
