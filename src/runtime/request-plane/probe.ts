// Is a worker instance reachable again? The cheapest check each transport allows, used to bring an
// instance that was marked down back into routing.
import { connect } from 'node:net';
import type { EndpointInstance } from '../discovery/index.js';
import { natsConnection } from '../nats-connection.js';
import { splitAddress } from './call-home-sender.js';
import { localHandler } from './local-plane.js';
import { splitTcpTransport } from './tcp-sender.js';

const CONNECT_TIMEOUT_MS = 2_000;

/**
 * TCP: a connection to the worker's listener opens. In-process: the endpoint is still served. NATS:
 * the connection to the server is up (a dead worker's subject then has no responders, which its
 * next request learns at once, so the down time is a quarantine as upstream's).
 */
export async function probeInstance(target: EndpointInstance, natsServer: string): Promise<boolean> {
  const t = target.transport;
  if ('inproc' in t) return localHandler(t.inproc) !== undefined;
  if ('tcp' in t) return connects(splitTcpTransport(t.tcp).address);
  if ('nats_tcp' in t) return !(await natsConnection(natsServer)).isClosed();
  return false;
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
