// TLS for the TCP request plane and its response streams (--tcp-tls-*). Every process both
// listens and dials: a worker takes requests and dials the frontend back with the response; a
// frontend dials workers and takes their response streams. So one set of files serves both roles.
import { connect as connectPlain, createServer as createPlainServer, type Server, type Socket } from 'node:net';
import { checkServerIdentity, connect as connectTls, createServer as createTlsServer } from 'node:tls';

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
  /** Dial without verifying the listener's certificate (local development only). */
  insecure?: boolean;
  /** The name sent (SNI) and verified when dialing, instead of the dialed host. */
  serverName?: string;
  /** A handshake not finished within this bound fails, on either side. */
  handshakeTimeoutMs: number;
}

/** A listening socket server, TLS when `tls` is given; `onConnection` sees sockets ready for frames. */
export function createSocketServer(onConnection: (socket: Socket) => void, tls?: TcpTls): Server {
  if (!tls) return createPlainServer({ noDelay: true }, onConnection);
  const server = createTlsServer(
    {
      cert: tls.cert,
      key: tls.key,
      ca: tls.clientCa,
      requestCert: tls.clientCa !== undefined,
      rejectUnauthorized: tls.clientCa !== undefined,
      noDelay: true,
      handshakeTimeout: tls.handshakeTimeoutMs,
    },
    onConnection,
  );
  // A client that fails the handshake (plain TCP, an unknown certificate) is dropped; nothing to report upward.
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  return server;
}

/** Dials `host:port`; `ready` is the event after which frames may be written. */
export function dialSocket(host: string, port: number, tls?: TcpTls): { socket: Socket; ready: 'connect' | 'secureConnect' } {
  if (!tls) return { socket: connectPlain({ host, port, noDelay: true }), ready: 'connect' };
  const name = tls.serverName ?? (isIp(host) ? undefined : host);
  const socket = connectTls({
    host,
    port,
    ca: tls.ca,
    cert: tls.clientCert,
    key: tls.clientKey,
    servername: name,
    rejectUnauthorized: tls.insecure !== true,
    // The certificate must name the server name given, not the address dialed (e.g. an IP).
    ...(tls.serverName === undefined ? {} : { checkServerIdentity: (_host: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(tls.serverName!, cert) }),
  });
  socket.setNoDelay(true);
  // A listener that accepts but never finishes the handshake fails the dial, as a refused one does.
  const timer = setTimeout(
    () => socket.destroy(new Error(`TLS handshake with ${host}:${port} did not finish within ${tls.handshakeTimeoutMs / 1000} s (--tcp-tls-handshake-timeout)`)),
    tls.handshakeTimeoutMs,
  );
  timer.unref();
  const settle = (): void => clearTimeout(timer);
  socket.once('secureConnect', settle);
  socket.once('close', settle);
  return { socket, ready: 'secureConnect' };
}

const isIp = (host: string): boolean => /^[\d.]+$/.test(host) || host.includes(':');
