// One NATS connection per process, shared by the NATS request plane and the NATS event plane.
// The client reconnects on its own, forever, so a restarted nats-server is picked up again.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ServiceUnreachableError } from '../protocols/index.js';

const NATS_FIX = 'start nats-server there, set NATS_SERVER to where it runs, or use --event-plane zmq and --request-plane tcp (the defaults with --discovery-backend file)';

const connections = new Map<string, Promise<NatsConnection>>();

/** `NATS_SERVER`: one URL or a comma-separated list. */
export function natsConnection(server: string): Promise<NatsConnection> {
  let conn = connections.get(server);
  if (!conn) {
    conn = connect({
      servers: server.split(',').map((s) => s.trim()),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      name: 'dynamo-ts',
    }).catch((err: Error) => {
      connections.delete(server);
      throw new ServiceUnreachableError('NATS', server, err.message, NATS_FIX);
    });
    connections.set(server, conn);
  }
  return conn;
}

export async function closeNatsConnections(): Promise<void> {
  const all = [...connections.values()];
  connections.clear();
  await Promise.all(all.map((c) => c.then((nc) => nc.close()).catch(() => undefined)));
}
