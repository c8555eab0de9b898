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
import type { PlaneConnection } from './plane-status.js';

const NATS_FIX = 'start nats-server there, set NATS_SERVER to where it runs, or use --event-plane zmq and --request-plane tcp (the defaults with --discovery-backend file)';

const connections = new Map<string, Promise<NatsConnection>>();
/** Per connection, who is told of its losses and returns. */
const watchers = new Map<string, Set<PlaneConnection>>();

function connectionKey(server: string, tls?: NatsTls): string {
  return tls ? `${server}\n${JSON.stringify(tls)}` : server;
}

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
  const key = connectionKey(server, tls);
  let conn = connections.get(key);
  if (!conn) {
    conn = connectNats(server, tls).then(
      (nc) => {
        void reportStatus(nc, key);
        return nc;
      },
      (err: unknown) => {
        connections.delete(key);
        throw err;
      },
    );
    connections.set(key, conn);
  }
  return conn;
}

/** Tells `watcher` when the connection to `server` is lost and when it is back; returns the function that stops it. */
export function watchNatsConnection(server: string, tls: NatsTls | undefined, watcher: PlaneConnection): () => void {
  const key = connectionKey(server, tls);
  let set = watchers.get(key);
  if (!set) watchers.set(key, (set = new Set()));
  set.add(watcher);
  return () => set.delete(watcher);
}

/** The client reconnects by itself, forever: its status says when it lost the server and when it is back. */
async function reportStatus(nc: NatsConnection, key: string): Promise<void> {
  for await (const status of nc.status()) {
    const set = watchers.get(key);
    if (!set) continue;
    if (status.type === 'disconnect') for (const w of set) w.lost(`disconnected from ${status.server}`);
    else if (status.type === 'reconnect') for (const w of set) w.restored();
  }
}

export async function closeNatsConnections(): Promise<void> {
  const all = [...connections.values()];
  connections.clear();
  await Promise.all(all.map((c) => c.then((nc) => nc.close()).catch(() => undefined)));
}
