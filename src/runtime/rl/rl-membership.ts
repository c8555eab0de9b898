// Which workers an RL admin op goes to: the live `rl` endpoint instances of the namespace (and of
// the chosen components), listed from discovery at the moment of the op, with a fingerprint of
// the list. Two listings with the same members have the same epoch, so a fan-out can tell whether
// workers came or went while its calls were out.
import { createHash } from 'node:crypto';
import { RL_ENDPOINT } from '../../protocols/index.js';
import type { DiscoveryBackend } from '../discovery/backend.js';
import { decodeEndpointInstance, INSTANCES_BUCKET, type EndpointInstance } from '../discovery/records.js';
import { watchRecords } from '../discovery/watch-records.js';

export interface RlMembershipScope {
  /** The namespace the workers register in, matched exactly. */
  namespace: string;
  /** Only these components; empty: every component. */
  components: readonly string[];
}

export interface RlMembershipSnapshot {
  epoch: number;
  /** Sorted by namespace, component, endpoint, instance id. */
  targets: EndpointInstance[];
}

function order(a: EndpointInstance, b: EndpointInstance): number {
  for (const key of ['namespace', 'component', 'endpoint'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return a.instanceId === b.instanceId ? 0 : a.instanceId < b.instanceId ? -1 : 1;
}

/**
 * The epoch of a membership: 53 bits of a SHA-256 over the sorted targets, so it stays an exact
 * JSON number for every client (upstream hashes to 64 bits; any equal-or-not comparison works alike).
 */
export function membershipEpoch(targets: readonly EndpointInstance[]): number {
  const hash = createHash('sha256');
  for (const t of targets) hash.update(`${t.namespace}\u0000${t.component}\u0000${t.endpoint}\u0000${t.instanceId.toString(16)}\n`);
  return Number(BigInt(`0x${hash.digest('hex').slice(0, 14)}`) & ((1n << 53n) - 1n));
}

/** Lists the live `rl` endpoints of `scope` once: discovery's current view, as a snapshot. */
export async function rlMembership(backend: DiscoveryBackend, scope: RlMembershipScope): Promise<RlMembershipSnapshot> {
  const live = new Map<string, EndpointInstance>();
  const stop = await watchRecords(backend, `${INSTANCES_BUCKET}/${scope.namespace}/`, decodeEndpointInstance, {
    onPut: (key, instance) => live.set(key, instance),
    onDelete: (key) => live.delete(key),
  });
  stop();
  const wanted = (i: EndpointInstance): boolean =>
    i.namespace === scope.namespace && i.endpoint === RL_ENDPOINT && (scope.components.length === 0 || scope.components.includes(i.component));
  const targets = [...live.values()].filter(wanted).sort(order);
  return { epoch: membershipEpoch(targets), targets };
}
