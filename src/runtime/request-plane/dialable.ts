// The transports a frontend can reach a worker by, named by their key in the worker's published
// `transport`. The client and the probe each keep a table with a row per name; a worker may run
// any request plane, so every row is loaded and the choice is made per instance.
import type { Transport } from '../discovery/index.js';

/** Looked up in this order (a published transport names one). */
export const DIALABLE_TRANSPORTS = ['inproc', 'tcp', 'nats_tcp'] as const;

export type DialableTransport = (typeof DIALABLE_TRANSPORTS)[number];

/** The kind and address of a published transport; null for one no row can dial (upstream's removed `http`). */
export function dialable(transport: Transport): { kind: DialableTransport; address: string } | null {
  const published: { readonly [key: string]: string | undefined } = transport;
  for (const kind of DIALABLE_TRANSPORTS) {
    const address = published[kind];
    if (address !== undefined) return { kind, address };
  }
  return null;
}
