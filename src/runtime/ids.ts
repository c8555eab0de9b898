// Instance ids are u64 (upstream: the etcd lease id). They exceed 2^53, so they live as bigint and
// travel as lowercase hex in keys, subjects and addresses.
import { randomBytes, randomFillSync } from 'node:crypto';

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

/** Random bytes for this many UUIDs are drawn at once. */
const UUID_BATCH = 256;
const uuidBytes = Buffer.alloc(16 * UUID_BATCH);
let uuidNext = uuidBytes.length;
/** One UUID's text, dashes in place, rewritten for each. */
const uuidText = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');
/** Where each of the 16 bytes' two hex digits go in the text. */
const UUID_DIGITS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` writes one, made as one string: Node's joins
 * 20 pieces into it, a few hundred bytes of garbage on each request.
 */
export function randomUuid(): string {
  if (uuidNext === uuidBytes.length) {
    randomFillSync(uuidBytes);
    uuidNext = 0;
  }
  for (let i = 0; i < 16; i++) {
    let byte = uuidBytes[uuidNext + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    const at = UUID_DIGITS[i]!;
    uuidText[at] = HEX_DIGITS[byte >> 4]!;
    uuidText[at + 1] = HEX_DIGITS[byte & 0x0f]!;
  }
  uuidNext += 16;
  return uuidText.toString('latin1');
}
