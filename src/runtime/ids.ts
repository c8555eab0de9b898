// Instance ids are u64 (upstream: the etcd lease id). They exceed 2^53, so they live as bigint and
// travel as lowercase hex in keys, subjects and addresses.
import { randomBytes } from 'node:crypto';

/** A random non-zero 63-bit id, shaped like an etcd lease id (for backends without leases). */
export function randomInstanceId(): bigint {
  return (randomBytes(8).readBigUInt64BE() >> 1n) | 1n;
}

/** `{instance_id:x}`: lowercase hex, no padding. */
export function instanceIdHex(id: bigint): string {
  return id.toString(16);
}

/** The id from a hex key segment, or null when it is not hex. */
export function parseInstanceIdHex(hex: string): bigint | null {
  return /^[0-9a-f]{1,16}$/i.test(hex) ? BigInt(`0x${hex}`) : null;
}
