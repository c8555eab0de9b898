// The pool's listening sockets, opened once by the primary before any process starts: the HTTP
// service's, and gRPC's when KServe is on. The primary accepts on them (`dispatch.ts` hands each
// connection over); every process also inherits them as descriptors, idle until the primary is gone.
import { createServer, type Server } from 'node:net';
import type { Config } from '../../config/index.js';
import { kserveLayout } from '../frontend/index.js';
import type { ListenerName } from './messages.js';
import type { ProcessPlan } from './plan.js';

export interface PoolListener {
  readonly name: ListenerName;
  readonly server: Server;
  /** The bound port (the chosen one with port 0). */
  readonly port: number;
  /** The listening socket's descriptor in the primary, inherited by the processes; undefined where the platform has none. */
  readonly fd: number | undefined;
  /** Whether process `index` serves this listener (gRPC: the first `grpcProcesses`). */
  servedBy(index: number): boolean;
}

/**
 * Node has no public accessor for a server's descriptor; its TCP handles expose `fd` on POSIX. Without
 * it the processes cannot take over the sockets when the primary dies (design-notes "Every core serves").
 */
function descriptorOf(server: Server): number | undefined {
  const fd = (server as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

function listen(host: string, port: number): Promise<Server> {
  // Paused: the primary never reads a byte; the process it hands the socket to does.
  const server = createServer({ pauseOnConnect: true });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Opens the listening sockets the processes of `plan` serve; rejects (with none left open) if one cannot listen. */
export async function openListeners(config: Config, plan: ProcessPlan): Promise<PoolListener[]> {
  const layout = kserveLayout(config);
  const wanted: { name: ListenerName; port: number; servedBy: (index: number) => boolean }[] = [
    { name: 'http', port: layout?.httpPort ?? config.httpPort, servedBy: () => true },
  ];
  if (layout && plan.grpcProcesses > 0) wanted.push({ name: 'grpc', port: layout.grpcPort, servedBy: (index) => index < plan.grpcProcesses });
  const opened: PoolListener[] = [];
  try {
    for (const { name, port, servedBy } of wanted) {
      const server = await listen(config.httpHost, port);
      opened.push({ name, server, port: (server.address() as { port: number }).port, fd: descriptorOf(server), servedBy });
    }
  } catch (err) {
    closeListeners(opened);
    throw err;
  }
  return opened;
}

/** Stops accepting; the sockets stay open while a process still holds them. */
export function closeListeners(listeners: readonly PoolListener[]): void {
  for (const { server } of listeners) server.close();
}

/** The config fields that give the bound ports, so every process logs and serves the ports the pool listens on. */
export function boundPorts(config: Config, listeners: readonly PoolListener[]): Partial<Config> {
  const port = (name: ListenerName): number | undefined => listeners.find((l) => l.name === name)?.port;
  const http = port('http')!;
  const grpc = port('grpc');
  if (config.grpcPort !== undefined) return { httpPort: http, ...(grpc !== undefined && { grpcPort: grpc }) };
  // --kserve-grpc-server: gRPC takes --http-port, the HTTP service moves to --grpc-metrics-port.
  if (kserveLayout(config)) return { grpcMetricsPort: http, ...(grpc !== undefined && { httpPort: grpc }) };
  return { httpPort: http };
}
