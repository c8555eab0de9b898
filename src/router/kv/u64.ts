// u64 values (block hashes, worker ids) as two unsigned 32-bit halves, so hot paths never touch BigInt.

const LOW_32 = 0xffff_ffffn;

/** Writes the halves of `value` (taken mod 2^64) at out[at] (high) and out[at+1] (low). */
export function splitU64Into(value: bigint, out: Uint32Array, at: number): void {
  const v = BigInt.asUintN(64, value);
  out[at] = Number(v >> 32n);
  out[at + 1] = Number(v & LOW_32);
}

export function joinU64(hi: number, lo: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}
