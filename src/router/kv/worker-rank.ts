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

/** Deletes every dp rank of `worker` from a map keyed by these keys; returns the entries their values held. */
export function deleteWorkerRanks(byKey: Map<bigint, { readonly size: number }>, worker: bigint): number {
  let removed = 0;
  for (const [key, entries] of byKey) {
    if (workerOfKey(key) !== worker) continue;
    removed += entries.size;
    byKey.delete(key);
  }
  return removed;
}
