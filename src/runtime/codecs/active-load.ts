// Upstream `ActiveLoad` JSON (reference/router.md §8.4) ⇄ the protocol type. The worker id is a u64
// written as a bare number and read back losslessly; absent counts stay absent. Workers report on
// every change of their KV use, so both directions avoid the general lossless JSON codec: the
// message is written field by field, and read with JSON.parse once the u64 is taken from its digits.
import { ValidationError, type ActiveLoad } from '../../protocols/index.js';
import { asU64, parseJsonLossless } from './lossless-json.js';

const COUNTS = ['active_decode_blocks', 'active_prefill_tokens', 'kv_used_blocks', 'waiting_requests'] as const;

function bad(what: string): never {
  throw new ValidationError(`invalid ActiveLoad: ${what}`);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

export function encodeActiveLoad(load: ActiveLoad): string {
  let text = `{"worker_id":${load.worker_id},"dp_rank":${load.dp_rank}`;
  for (const key of COUNTS) {
    const v = load[key];
    if (v !== undefined) text += `,"${key}":${v}`;
  }
  return `${text}}`;
}

/** The worker id's digits, as upstream writes them: first key, bare number. */
const LEADING_WORKER_ID = /^\{"worker_id":(\d{1,20}),/;

/** JSON.parse with the worker id read from its digits; the general lossless parser for other layouts. */
function parseLoad(text: string): unknown {
  const id = LEADING_WORKER_ID.exec(text);
  if (!id) return parseJsonLossless(text);
  const root = JSON.parse(text) as Record<string, unknown>;
  root.worker_id = BigInt(id[1]!);
  return root;
}

/** Throws a ValidationError naming the first bad field; null counts read as absent. */
export function decodeActiveLoad(text: string): ActiveLoad {
  let root: unknown;
  try {
    root = parseLoad(text);
  } catch (err) {
    return bad((err as Error).message);
  }
  return activeLoadFrom(root);
}

/**
 * A report as decodeActiveLoad reads it once parsed (the worker id a u64, bigint or number): its
 * checks, and a new object with only its fields. In-process reports come this way, never encoded.
 */
export function activeLoadFrom(root: unknown): ActiveLoad {
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
