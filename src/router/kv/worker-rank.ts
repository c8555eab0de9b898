// One (worker, dp rank) pair as one bigint key, so the per-worker maps of the kv router (active
// sequences, overlaps, predicted blocks) hold data-parallel ranks without a second level. Worker
// ids are u64: rank 0 is the worker id itself, any other rank sits above bit 64.
const U64_MASK = (1n << 64n) - 1n;

export function rankKey(worker: bigint, dpRank: number): bigint {
  return dpRank === 0 ? worker : worker | (BigInt(dpRank) << 64n);
}

export function workerOfKey(key: bigint): bigint {
  return key & U64_MASK;
}

export function rankOfKey(key: bigint): number {
  return Number(key >> 64n);
}
