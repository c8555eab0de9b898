// Upstream `ActiveLoad` JSON (reference/router.md §8.4) ⇄ the protocol type. The worker id is a u64
// written as a bare number and read back losslessly; absent counts stay absent.
import { ValidationError, type ActiveLoad } from '../../protocols/index.js';
import { asU64, parseJsonLossless, stringifyJsonWithU64 } from './lossless-json.js';

const COUNTS = ['active_decode_blocks', 'active_prefill_tokens', 'kv_used_blocks', 'waiting_requests'] as const;

function bad(what: string): never {
  throw new ValidationError(`invalid ActiveLoad: ${what}`);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

export function encodeActiveLoad(load: ActiveLoad): string {
  return stringifyJsonWithU64(load);
}

/** Throws a ValidationError naming the first bad field; null counts read as absent. */
export function decodeActiveLoad(text: string): ActiveLoad {
  let root: unknown;
  try {
    root = parseJsonLossless(text);
  } catch (err) {
    return bad((err as Error).message);
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return bad('must be an object');
  const json = root as Record<string, unknown>;
  const workerId = asU64(json.worker_id);
  if (workerId === null) return bad('worker_id must be a u64');
  const dpRank = json.dp_rank ?? 0;
  if (!isCount(dpRank)) return bad('dp_rank must be a u32');
  const load: ActiveLoad = { worker_id: workerId, dp_rank: dpRank };
  for (const key of COUNTS) {
    const v = json[key];
    if (v === undefined || v === null) continue;
    if (!isCount(v)) return bad(`${key} must be a non-negative integer`);
    load[key] = v;
  }
  return load;
}
