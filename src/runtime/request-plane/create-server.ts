import type { RequestPlaneName } from '../../protocols/index.js';
import type { NatsTls } from '../nats-connection.js';
import type { PartTable } from '../part-table.js';
import type { IngressLogger } from './ingress.js';
import type { TcpTls } from './tcp-tls.js';
import type { RequestPlaneServer } from './types.js';

export type { RequestPlaneName };

export interface RequestPlaneDeps {
  /** `DYN_TCP_MAX_MESSAGE_SIZE`. */
  maxMessageSize: number;
  /** The host published in discovery. */
  advertiseHost: string;
  /** Where the listener binds; all interfaces when unset. */
  bindHost?: string;
  natsServer: string;
  /** TLS for the TCP listener and for the response streams handlers dial back (both planes). */
  tcpTls?: TcpTls;
  natsTls?: NatsTls;
  logger?: IngressLogger;
  /** How long running requests may finish once the server closes (unset: DRAIN_GRACE_MS). */
  shutdownGraceMs?: number;
}

/** The worker side of each request plane. */
export const REQUEST_PLANE_SERVERS: PartTable<RequestPlaneName, RequestPlaneDeps, RequestPlaneServer> = {
  tcp: async () => {
    const { TcpRequestPlaneServer } = await import('./tcp-server.js');
    return (deps) =>
      new TcpRequestPlaneServer({
        maxMessageSize: deps.maxMessageSize,
        advertiseHost: deps.advertiseHost,
        bindHost: deps.bindHost,
        logger: deps.logger,
        tls: deps.tcpTls,
        shutdownGraceMs: deps.shutdownGraceMs,
      });
  },
  nats: async () => {
    const { NatsRequestPlaneServer } = await import('./nats-plane.js');
    return (deps) => new NatsRequestPlaneServer(deps.natsServer, deps.logger, deps.natsTls, deps.tcpTls, deps.shutdownGraceMs);
  },
  inproc: async () => {
    const { LocalRequestPlaneServer } = await import('./local-plane.js');
    return () => new LocalRequestPlaneServer();
  },
};
