// A 64-bit fingerprint of a radix-tree path (the local hashes from the root down to a node), as
// two int32 halves in 32-bit integer math. A node's fingerprint is its parent's mixed with its own
// local hash, so a query can compute every level's fingerprint from its local hashes alone and
// look any level up without reading the levels above it.
//
// The step is (parent ^ local) through a three-round Feistel network: a bijection of 64 bits. So
// for a fixed parent, distinct local hashes give distinct children (siblings never collide), and
// for a fixed local hash, distinct parents give distinct children. Two paths of one depth can only
// meet where parent ^ local agree for different parents and locals: a 64-bit collision, the same
// standing as the local hashes themselves (and as upstream's positional indexer, which names a
// position by its sequence hash).

/** Fingerprint of the root (the empty path). */
export const ROOT_FP_HI = 0x6a09e667 | 0;
export const ROOT_FP_LO = 0xbb67ae85 | 0;

/** Writes the fingerprint of the child with local hash (localHi, localLo) under (hi, lo) to out[at] (high) and out[at + 1] (low). */
export function childFingerprint(hi: number, lo: number, localHi: number, localLo: number, out: Int32Array, at: number): void {
  let a = hi ^ localHi;
  let b = lo ^ localLo;
  b ^= Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a ^= Math.imul(b ^ (b >>> 15), 0xc2b2ae35);
  b ^= Math.imul(a ^ (a >>> 13), 0x27d4eb2f);
  out[at] = a;
  out[at + 1] = b;
}

/**
 * Fingerprints of every level of a query: level i (hi, lo local hashes at query[offset + 2i..]) to
 * out[2i] and out[2i + 1].
 */
export function pathFingerprints(query: Uint32Array, offset: number, count: number, out: Int32Array): void {
  let hi = ROOT_FP_HI;
  let lo = ROOT_FP_LO;
  for (let i = 0, at = offset; i < count; i++, at += 2) {
    childFingerprint(hi, lo, query[at]! | 0, query[at + 1]! | 0, out, i * 2);
    hi = out[i * 2]!;
    lo = out[i * 2 + 1]!;
  }
}
