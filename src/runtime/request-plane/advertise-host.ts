import { networkInterfaces } from 'node:os';
import type { DiscoveryReach } from '../discovery/index.js';

/** Where a single-host deployment's internal listeners bind and what they publish. */
export const LOOPBACK_HOST = '127.0.0.1';

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
  return LOOPBACK_HOST;
}

/** Where a process's TCP listeners bind (all interfaces when unset) and the host they publish. */
export interface ListenHosts {
  readonly advertiseHost: string;
  readonly bindHost?: string;
}

/**
 * The listen hosts of a process whose peers are all on this host (`host`) or elsewhere in a cluster
 * (`cluster`). A configured host (`DYN_TCP_RPC_HOST`) wins either way; unconfigured, a single-host
 * process binds and publishes loopback, so nothing internal is open to the network, and a cluster
 * process binds every interface and publishes its first address.
 */
export function listenHosts(
  reach: DiscoveryReach,
  configured: { advertiseHost?: string; bindHost?: string },
  env: Record<string, string | undefined> = process.env,
): ListenHosts {
  const advertise = configured.advertiseHost ?? (env.DYN_TCP_RPC_HOST || undefined);
  if (reach === 'cluster' || advertise !== undefined || configured.bindHost !== undefined) {
    return { advertiseHost: advertise ?? advertiseHost(env), bindHost: configured.bindHost };
  }
  return { advertiseHost: LOOPBACK_HOST, bindHost: LOOPBACK_HOST };
}

/** Whether a bound address is reachable from this host only. */
export function isLoopbackAddress(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || address === '::ffff:127.0.0.1' || address === 'localhost';
}

/** `host:port`, bracketing IPv6 hosts. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
