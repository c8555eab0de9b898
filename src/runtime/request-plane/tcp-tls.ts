// TLS for the TCP request plane and its response streams (--tcp-tls-*). Every process both
// listens and dials: a worker takes requests and dials the frontend back with the response; a
// frontend dials workers and takes their response streams. So one set of files serves both roles.
import { connect as connectPlain, createServer as createPlainServer, type Server, type Socket } from 'node:net';
import { connect as connectTls, createServer as createTlsServer } from 'node:tls';

/** PEM contents. */
export interface TcpTls {
  /** This process's listeners present this certificate. */
  cert: Buffer;
  key: Buffer;
  /** CA that signed the listeners this process dials; the system CAs when absent. */
  ca?: Buffer;
  /** Presented when dialing, for listeners that require client certificates. */
  clientCert?: Buffer;
  clientKey?: Buffer;
  /** When set, listeners require a client certificate this CA signed (mTLS). */
  clientCa?: Buffer;
}

/** A listening socket server, TLS when `tls` is given; `onConnection` sees sockets ready for frames. */
export function createSocketServer(onConnection: (socket: Socket) => void, tls?: TcpTls): Server {
  if (!tls) return createPlainServer({ noDelay: true }, onConnection);
  const server = createTlsServer(
    { cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: tls.clientCa !== undefined, rejectUnauthorized: tls.clientCa !== undefined, noDelay: true },
    onConnection,
  );
  // A client that fails the handshake (plain TCP, an unknown certificate) is dropped; nothing to report upward.
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  return server;
}

/** Dials `host:port`; `ready` is the event after which frames may be written. */
export function dialSocket(host: string, port: number, tls?: TcpTls): { socket: Socket; ready: 'connect' | 'secureConnect' } {
  if (!tls) return { socket: connectPlain({ host, port, noDelay: true }), ready: 'connect' };
  const socket = connectTls({ host, port, ca: tls.ca, cert: tls.clientCert, key: tls.clientKey, servername: isIp(host) ? undefined : host });
  socket.setNoDelay(true);
  return { socket, ready: 'secureConnect' };
}

const isIp = (host: string): boolean => /^[\d.]+$/.test(host) || host.includes(':');
