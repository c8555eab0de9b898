import { networkInterfaces } from 'node:os';

/**
 * The host other processes should dial: `DYN_TCP_RPC_HOST` when set, else the first non-internal
 * IPv4 address, else loopback.
 */
export function advertiseHost(env: Record<string, string | undefined> = process.env): string {
  const configured = env.DYN_TCP_RPC_HOST;
  if (configured) return configured;
  for (const addrs of Object.values(networkInterfaces())) {
    for (const addr of addrs ?? []) if (addr.family === 'IPv4' && !addr.internal) return addr.address;
  }
  return '127.0.0.1';
}

/** `host:port`, bracketing IPv6 hosts. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
