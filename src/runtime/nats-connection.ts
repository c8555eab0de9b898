// One NATS connection per process (per server list and TLS settings), shared by the NATS request
// plane and the NATS event plane; a part with a lifetime of its own (a response store) opens its
// own. The client reconnects on its own, forever, so a restarted nats-server is picked up again.
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';

/** --nats-tls-*: files the client reads itself, each time it (re)connects. */
export interface NatsTls {
  /** CA that signed the server's certificate; the system CAs when absent. */
  caFile?: string;
  /** Client certificate and key, for servers that verify clients. */
  certFile?: string;
  keyFile?: string;
  /** Skip verifying the server's certificate (testing only). */
  insecure?: boolean;
}
import { ServiceUnreachableError } from '../protocols/index.js';

const NATS_FIX = 'start nats-server there, set NATS_SERVER to where it runs, or use --event-plane zmq and --request-plane tcp (the defaults with --discovery-backend file)';

const connections = new Map<string, Promise<NatsConnection>>();

function tlsOptions(tls: NatsTls): NonNullable<ConnectionOptions['tls']> {
  // The transport hands unknown keys on to tls.connect, which is where rejectUnauthorized goes.
  const options: Record<string, unknown> = { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile };
  if (tls.insecure) options.rejectUnauthorized = false;
  return options as NonNullable<ConnectionOptions['tls']>;
}

/** A connection of the caller's own, which closes it: `NATS_SERVER` is one URL or a comma-separated list; with `tls`, the connection must be TLS. */
export function connectNats(server: string, tls?: NatsTls): Promise<NatsConnection> {
  return connect({
    servers: server.split(',').map((s) => s.trim()),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    name: 'dynamo-ts',
    ...(tls && { tls: tlsOptions(tls) }),
  }).catch((err: Error) => {
    throw new ServiceUnreachableError('NATS', server, err.message, NATS_FIX);
  });
}

/** The process's shared connection to `server` (connectNats), closed by closeNatsConnections(). */
export function natsConnection(server: string, tls?: NatsTls): Promise<NatsConnection> {
  const key = tls ? `${server}\n${JSON.stringify(tls)}` : server;
  let conn = connections.get(key);
  if (!conn) {
    conn = connectNats(server, tls).catch((err: unknown) => {
      connections.delete(key);
      throw err;
    });
    connections.set(key, conn);
  }
  return conn;
}

export async function closeNatsConnections(): Promise<void> {
  const all = [...connections.values()];
  connections.clear();
  await Promise.all(all.map((c) => c.then((nc) => nc.close()).catch(() => undefined)));
}
