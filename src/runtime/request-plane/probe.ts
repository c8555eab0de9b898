// Is a worker instance reachable again? The cheapest check each transport allows, used to bring an
// instance that was marked down back into routing.
import { connect } from 'node:net';
import type { EndpointInstance } from '../discovery/index.js';
import { natsConnection } from '../nats-connection.js';
import { splitAddress } from './call-home-sender.js';
import { dialable, type DialableTransport } from './dialable.js';
import { localHandler } from './local-plane.js';
import { splitTcpTransport } from './tcp-sender.js';

const CONNECT_TIMEOUT_MS = 2_000;

/**
 * TCP: a connection to the worker's listener opens. In-process: the endpoint is still served. NATS:
 * the connection to the server is up (a dead worker's subject then has no responders, which its
 * next request learns at once, so the down time is a quarantine as upstream's).
 */
const PROBES: { readonly [K in DialableTransport]: (address: string, natsServer: string) => Promise<boolean> } = {
  inproc: async (name) => localHandler(name) !== undefined,
  tcp: (address) => connects(splitTcpTransport(address).address),
  nats_tcp: async (_subject, natsServer) => !(await natsConnection(natsServer)).isClosed(),
};

export async function probeInstance(target: EndpointInstance, natsServer: string): Promise<boolean> {
  const route = dialable(target.transport);
  return route ? PROBES[route.kind](route.address, natsServer) : false;
}

function connects(address: string): Promise<boolean> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
