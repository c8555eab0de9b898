// Dynamo-compatible KV block hashing (reference/router.md §1): XXH3-64 over u32-LE token bytes.
// Hashes are u64, so they are bigint here.
import os from 'node:os';
import { xxh3 } from '@node-rs/xxhash';

/** Base seed of local block hashes and of every chain step. */
export const XXH3_SEED = 1337n;

const U64_MASK = 0xffff_ffff_ffff_ffffn;
const LITTLE_ENDIAN_HOST = os.endianness() === 'LE';

export interface SaltOptions {
  loraName?: string | null;
  cacheNamespace?: string | null;
}

/** XXH3-64 of raw bytes; `compute_block_hash` upstream. */
export function computeBlockHash(bytes: Uint8Array, seed: bigint = XXH3_SEED): bigint {
  return xxh3.xxh64(bytes, seed);
}

/** Seed for local hashes: 1337 + xxh3(lora, 0) + xxh3(namespace, 1), wrapping; empty strings count as absent. */
export function computeSaltSeed(opts: SaltOptions = {}): bigint {
  let seed = XXH3_SEED;
  if (opts.loraName) seed = (seed + xxh3.xxh64(Buffer.from(opts.loraName, 'utf8'), 0n)) & U64_MASK;
  if (opts.cacheNamespace) seed = (seed + xxh3.xxh64(Buffer.from(opts.cacheNamespace, 'utf8'), 1n)) & U64_MASK;
  return seed;
}

/**
 * Prompts up to this many tokens are laid out in one buffer kept for every call (hashing reads
 * the bytes at once and keeps nothing): no allocation per call, and no on-heap typed array turned
 * into an ArrayBuffer (what `.buffer` of a small one costs). Longer ones get their own.
 */
const SCRATCH_TOKENS = 65_536;
let scratch = new Uint32Array(1024);

/** Token ids [start, start+count) as u32 little-endian bytes; valid until the next call. */
function tokenBytes(tokens: ArrayLike<number>, start: number, count: number): Uint8Array {
  let words = scratch;
  if (count > SCRATCH_TOKENS) words = new Uint32Array(count);
  else if (count > scratch.length) words = scratch = new Uint32Array(Math.min(SCRATCH_TOKENS, Math.max(count, scratch.length * 2)));
  for (let i = 0; i < count; i++) words[i] = tokens[start + i]!;
  const bytes = new Uint8Array(words.buffer, 0, count * 4);
  if (!LITTLE_ENDIAN_HOST) {
    for (let i = 0; i < bytes.length; i += 4) {
      const b0 = bytes[i]!;
      const b1 = bytes[i + 1]!;
      bytes[i] = bytes[i + 3]!;
      bytes[i + 1] = bytes[i + 2]!;
      bytes[i + 2] = b1;
      bytes[i + 3] = b0;
    }
  }
  return bytes;
}

/**
 * Local hashes of the full blocks of `tokens` (a partial tail is never hashed).
 * `fromBlock` skips blocks already hashed, for sequences that grow.
 */
export function computeLocalBlockHashes(
  tokens: ArrayLike<number>,
  blockSize: number,
  seed: bigint = XXH3_SEED,
  fromBlock = 0,
): bigint[] {
  if (blockSize <= 0) return [];
  const numBlocks = Math.floor(tokens.length / blockSize);
  if (numBlocks <= fromBlock) return [];
  const blockBytes = blockSize * 4;
  const bytes = tokenBytes(tokens, fromBlock * blockSize, (numBlocks - fromBlock) * blockSize);
  // One block (a prompt's seed digest, a short prompt) is the whole view: no subarray to make.
  if (numBlocks - fromBlock === 1) return [xxh3.xxh64(bytes, seed)];
  const out = new Array<bigint>(numBlocks - fromBlock);
  for (let b = 0; b < out.length; b++) {
    out[b] = xxh3.xxh64(bytes.subarray(b * blockBytes, (b + 1) * blockBytes), seed);
  }
  return out;
}

/**
 * Eagle (speculative decoding) local hashes: windows of blockSize+1 tokens with stride blockSize,
 * floor((N-1)/B) blocks.
 */
export function computeEagleLocalBlockHashes(
  tokens: ArrayLike<number>,
  blockSize: number,
  seed: bigint = XXH3_SEED,
): bigint[] {
  if (blockSize <= 0 || tokens.length === 0) return [];
  const numBlocks = Math.floor((tokens.length - 1) / blockSize);
  if (numBlocks === 0) return [];
  const bytes = tokenBytes(tokens, 0, numBlocks * blockSize + 1);
  const out = new Array<bigint>(numBlocks);
  for (let b = 0; b < numBlocks; b++) {
    out[b] = xxh3.xxh64(bytes.subarray(b * blockSize * 4, ((b + 1) * blockSize + 1) * 4), seed);
  }
  return out;
}

const chainScratch = new DataView(new ArrayBuffer(16));
const chainBytes = new Uint8Array(chainScratch.buffer);

/** One chain step: xxh3(LE_u64(parent) ‖ LE_u64(local), seed); the public chain's seed is 1337. */
export function chainSequenceHash(parent: bigint, local: bigint, seed: bigint = XXH3_SEED): bigint {
  chainScratch.setBigUint64(0, parent, true);
  chainScratch.setBigUint64(8, local, true);
  return xxh3.xxh64(chainBytes, seed);
}

/** Sequence (chain) hashes: seq[0] = local[0], seq[i] = chain(seq[i-1], local[i]). */
export function computeSequenceHashes(local: readonly bigint[], chainSeed: bigint = XXH3_SEED): bigint[] {
  const out = new Array<bigint>(local.length);
  let prev = 0n;
  for (let i = 0; i < local.length; i++) {
    prev = i === 0 ? local[0]! : chainSequenceHash(prev, local[i]!, chainSeed);
    out[i] = prev;
  }
  return out;
}
