// vLLM's ZMQ KV events (`KVEventBatch`, msgpack; reference/router.md §2.3) → the protocol's
// KvCacheEvents. Accepts the three layouts vLLM has used: array batch with array events, array
// batch with tagged-map events, and map batch with tagged-map events.
import { decode as decodeMsgpack } from '@msgpack/msgpack';
import { ValidationError, type KvCacheEvent, type KvCacheEventData, type StorageTier } from '../../protocols/index.js';
import { computeEagleLocalBlockHashes, computeLocalBlockHashes, computeSaltSeed } from '../../protocols/index.js';

// 64-bit integers (block hashes) decode as bigint, so none loses precision.
const MSGPACK_OPTIONS = { useBigInt64: true } as const;

/** Field order of array-like events after the tag (vLLM's msgspec `array_like` structs). */
const STORED_FIELDS = ['block_hashes', 'parent_block_hash', 'token_ids', 'block_size', 'lora_id', 'medium', 'lora_name'] as const;
const REMOVED_FIELDS = ['block_hashes', 'medium'] as const;
/** vLLM/KVBM medium names → storage tiers (reference/router.md §2.1); unknown media are skipped. */
const TIER_OF_MEDIUM = new Map<string, StorageTier>([
  ['GPU', 'device'],
  ['DEVICE', 'device'],
  ['CPU', 'host_pinned'],
  ['CPU_PINNED', 'host_pinned'],
  ['CPU_TIER1', 'host_pinned'],
  ['CPU_TIER2', 'disk'],
  ['DISK', 'disk'],
  ['NVME', 'disk'],
  ['EXTERNAL', 'external'],
  ['NETWORK', 'external'],
  ['REMOTE', 'external'],
  ['SHARED', 'external'],
]);

type Fields = Record<string, unknown>;

export interface VllmDecodeOptions {
  /** The router's KV block size; a BlockStored with another block_size is rejected. */
  blockSize: number;
}

export interface VllmEventBatch {
  ts: number;
  dpRank: number;
  /** Events in order; event_id is left 0 for the publisher to number. */
  events: KvCacheEvent[];
  /** The storage tier of each event, index for index. */
  tiers: StorageTier[];
}

function bad(what: string): never {
  throw new ValidationError(`invalid vLLM KV event batch: ${what}`);
}

/** vLLM block hashes: signed or unsigned ints (bit-cast to u64) or bytes (last 8, big-endian). */
export function vllmHashToU64(h: unknown): bigint {
  if (typeof h === 'bigint') return BigInt.asUintN(64, h);
  if (typeof h === 'number' && Number.isInteger(h)) return BigInt.asUintN(64, BigInt(h));
  if (h instanceof Uint8Array) {
    let v = 0n;
    for (let i = Math.max(0, h.length - 8); i < h.length; i++) v = (v << 8n) | BigInt(h[i]!);
    return v;
  }
  return bad(`block hash of type ${typeof h}`);
}

function fieldsOf(raw: unknown): { tag: string; fields: Fields } {
  if (Array.isArray(raw)) {
    const tag = raw[0];
    if (typeof tag !== 'string') bad('array event without a tag');
    const names = tag === 'BlockStored' ? STORED_FIELDS : tag === 'BlockRemoved' ? REMOVED_FIELDS : [];
    const fields: Fields = {};
    names.forEach((name, i) => (fields[name] = raw[i + 1]));
    return { tag, fields };
  }
  if (raw !== null && typeof raw === 'object' && typeof (raw as Fields).type === 'string') {
    return { tag: (raw as Fields).type as string, fields: raw as Fields };
  }
  return bad('event is neither a tagged array nor a tagged map');
}

function tierOf(medium: unknown): StorageTier | undefined {
  return medium === undefined || medium === null ? 'device' : TIER_OF_MEDIUM.get(String(medium).toUpperCase());
}

/** Eagle events carry bigram pairs (a, b); the hashed stream is a0..a_last, b_last. */
function flattenTokens(tokens: unknown[]): { tokens: number[]; eagle: boolean } {
  if (tokens.length > 0 && Array.isArray(tokens[0])) {
    const pairs = tokens as number[][];
    return { tokens: [...pairs.map((p) => p[0]!), pairs[pairs.length - 1]![1]!], eagle: true };
  }
  return { tokens: tokens as number[], eagle: false };
}

function storedData(f: Fields, opts: VllmDecodeOptions): KvCacheEventData {
  if (!Array.isArray(f.block_hashes) || !Array.isArray(f.token_ids)) bad('BlockStored needs block_hashes and token_ids');
  if (f.block_size !== undefined && f.block_size !== null && Number(f.block_size) !== opts.blockSize) {
    bad(`engine block_size ${String(f.block_size)} differs from the router's kv block size ${opts.blockSize}`);
  }
  const hashes = f.block_hashes.map(vllmHashToU64);
  const parent = f.parent_block_hash === undefined || f.parent_block_hash === null ? null : vllmHashToU64(f.parent_block_hash);
  // A batch that repeats its parent or itself would corrupt the chain; upstream drops it.
  const unique = new Set(hashes);
  if (unique.size !== hashes.length || (parent !== null && unique.has(parent))) return { removed: { block_hashes: [] } };
  const loraName = typeof f.lora_name === 'string' ? f.lora_name : null;
  const seed = computeSaltSeed({ loraName });
  const { tokens, eagle } = flattenTokens(f.token_ids);
  const local = eagle
    ? computeEagleLocalBlockHashes(tokens, opts.blockSize, seed)
    : computeLocalBlockHashes(tokens, opts.blockSize, seed);
  if (local.length < hashes.length) bad(`${hashes.length} block hashes but tokens for ${local.length} blocks`);
  return {
    stored: {
      parent_hash: parent,
      blocks: hashes.map((block_hash, i) => ({ block_hash, tokens_hash: local[i]!, mm_extra_info: null })),
    },
  };
}

/** Decodes one msgpack `KVEventBatch` payload (the third frame of a vLLM ZMQ message). */
export function decodeVllmEventBatch(payload: Uint8Array, opts: VllmDecodeOptions): VllmEventBatch {
  let batch: unknown;
  try {
    batch = decodeMsgpack(payload, MSGPACK_OPTIONS);
  } catch (err) {
    return bad((err as Error).message);
  }
  let ts: unknown;
  let rawEvents: unknown;
  let dp: unknown;
  if (Array.isArray(batch)) [ts, rawEvents, dp] = batch;
  else if (batch !== null && typeof batch === 'object') ({ ts, events: rawEvents, data_parallel_rank: dp } = batch as Fields);
  else bad('batch is neither an array nor a map');
  if (!Array.isArray(rawEvents)) bad('events must be an array');
  const dpRank = dp === undefined || dp === null ? 0 : Number(dp);
  const events: KvCacheEvent[] = [];
  const tiers: StorageTier[] = [];
  for (const raw of rawEvents) {
    const { tag, fields } = fieldsOf(raw);
    const tier = tierOf(fields.medium);
    let data: KvCacheEventData;
    if (tier === undefined) continue;
    if (tag === 'AllBlocksCleared') data = 'cleared';
    else if (tag === 'BlockStored') data = storedData(fields, opts);
    else if (tag === 'BlockRemoved') {
      if (!Array.isArray(fields.block_hashes)) bad('BlockRemoved needs block_hashes');
      data = { removed: { block_hashes: fields.block_hashes.map(vllmHashToU64) } };
    } else continue;
    events.push({ event_id: 0, data, dp_rank: dpRank });
    tiers.push(tier);
  }
  return { ts: typeof ts === 'number' ? ts : Number(ts ?? 0), dpRank, events, tiers };
}

/** The second frame of a vLLM ZMQ message: the 8-byte big-endian sequence number (-1 ends a replay). */
export function decodeVllmSequence(frame: Uint8Array): bigint {
  if (frame.length !== 8) bad(`sequence frame of ${frame.length} bytes`);
  return new DataView(frame.buffer, frame.byteOffset, 8).getBigInt64(0, false);
}
