// Where a pool process's connections come from: the primary hands them over while it lives; once it
// is gone, the process accepts them itself on the listening sockets it inherited at start (every
// surviving process does, the kernel spreading the accepts), so the port stays served.
import { createServer, type Server, type Socket } from 'node:net';
import type { TakenConnections } from '../frontend/index.js';
import type { InheritedListener, ListenerName } from './messages.js';

export class ConnectionIntake {
  private readonly own: Server[] = [];

  constructor(private readonly serve: TakenConnections) {}

  /** A connection the primary accepted on `listener`. */
  take(listener: ListenerName, socket: Socket): void {
    const serve = this.serve[listener];
    if (serve) serve(socket);
    else socket.resetAndDestroy();
  }

  /** Accepts on the inherited listening sockets this process serves; resolves once it does. */
  async acceptOn(listeners: readonly InheritedListener[]): Promise<void> {
    await Promise.all(
      listeners.map(({ name, fd }) => {
        const serve = this.serve[name];
        if (!serve) return undefined;
        const server = createServer(serve);
        this.own.push(server);
        return new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen({ fd }, () => {
            server.off('error', reject);
            resolve();
          });
        });
      }),
    );
  }

  /** Stops accepting; the listening sockets stay open in the processes still holding them. */
  close(): void {
    for (const server of this.own.splice(0)) server.close();
  }
}
