// Upstream RouterEvent JSON (reference/router.md §2.1, §2.2) ⇄ the protocol types, u64-exact, and
// the 2026 event-plane envelope around it. Hashes and worker ids never pass through JSON.parse.
import {
  ValidationError,
  type KvCacheEvent,
  type KvCacheEventData,
  type KvCacheStoredBlock,
  type RouterEvent,
  type StorageTier,
} from '../../protocols/index.js';
import { parseJsonLossless, stringifyJsonWithU64 } from './lossless-json.js';

type JsonObject = Record<string, unknown>;

function bad(what: string): never {
  throw new ValidationError(`invalid KV event: ${what}`);
}

function asObject(v: unknown, what: string): JsonObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(`${what} must be an object`);
  return v as JsonObject;
}

function asU64(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' && v >= 0n && v < 1n << 64n) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return bad(`${what} must be a u64`);
}

function asU64List(v: unknown, what: string): bigint[] {
  if (!Array.isArray(v)) bad(`${what} must be an array`);
  return v.map((h, i) => asU64(h, `${what}[${i}]`));
}

function parse(text: string): unknown {
  try {
    return parseJsonLossless(text);
  } catch (err) {
    return bad((err as Error).message);
  }
}

function decodeData(v: unknown): KvCacheEventData {
  if (v === 'cleared') return 'cleared';
  const tagged = asObject(v, 'event.data');
  if ('stored' in tagged) {
    const stored = asObject(tagged.stored, 'stored');
    const parent = stored.parent_hash;
    if (!Array.isArray(stored.blocks)) bad('stored.blocks must be an array');
    const blocks = stored.blocks.map((b, i): KvCacheStoredBlock => {
      const block = asObject(b, `stored.blocks[${i}]`);
      return {
        block_hash: asU64(block.block_hash, 'block_hash'),
        tokens_hash: asU64(block.tokens_hash, 'tokens_hash'),
        mm_extra_info: null,
      };
    });
    return { stored: { parent_hash: parent === null || parent === undefined ? null : asU64(parent, 'parent_hash'), blocks } };
  }
  if ('removed' in tagged) {
    return { removed: { block_hashes: asU64List(asObject(tagged.removed, 'removed').block_hashes, 'removed.block_hashes') } };
  }
  return bad('event.data must be stored, removed or "cleared"');
}

function decodeKvCacheEvent(v: unknown): KvCacheEvent {
  const event = asObject(v, 'event');
  const dpRank = event.dp_rank ?? 0;
  if (typeof dpRank !== 'number' || !Number.isInteger(dpRank) || dpRank < 0) bad('dp_rank must be a u32');
  return { event_id: Number(asU64(event.event_id, 'event_id')), data: decodeData(event.data), dp_rank: dpRank };
}

const TIERS = new Set<unknown>(['device', 'host_pinned', 'disk', 'external']);

function decodeRouterEventObject(root: JsonObject): RouterEvent {
  const event: RouterEvent = { worker_id: asU64(root.worker_id, 'worker_id'), event: decodeKvCacheEvent(root.event) };
  const tier = root.storage_tier ?? 'device';
  if (!TIERS.has(tier)) bad('storage_tier must be device, host_pinned, disk or external');
  if (tier !== 'device') event.storage_tier = tier as StorageTier;
  const session = root.session_id ?? null;
  if (session !== null && typeof session !== 'string') bad('session_id must be a string');
  if (session !== null) event.session_id = session;
  return event;
}

/**
 * Decodes upstream's `RouterEvent` JSON, bare or inside the event-plane envelope.
 * `storage_tier` is kept when it is not `device`, `session_id` when present.
 */
export function decodeRouterEvent(text: string): RouterEvent {
  const root = asObject(parse(text), 'RouterEvent');
  if (Array.isArray(root.payload) && root.publisher_id !== undefined) {
    return decodeRouterEventObject(asObject(parse(Buffer.from(decodeEnvelopeObject(root).payload).toString('utf8')), 'RouterEvent'));
  }
  return decodeRouterEventObject(root);
}

/** The newest form: `{worker_id, storage_tier, event}` with bare u64 numbers, and `session_id` when the event has one. */
export function encodeRouterEvent(event: RouterEvent): string {
  const session = event.session_id === undefined ? {} : { session_id: event.session_id };
  return stringifyJsonWithU64({ worker_id: event.worker_id, storage_tier: event.storage_tier ?? 'device', event: event.event, ...session });
}

export interface NatsEnvelope {
  publisherId: bigint;
  sequence: bigint;
  publishedAtMs: number;
  payload: Uint8Array;
}

function decodeEnvelopeObject(root: JsonObject): NatsEnvelope {
  const payload = root.payload;
  if (!Array.isArray(payload) || payload.some((b) => typeof b !== 'number' || b < 0 || b > 255 || !Number.isInteger(b))) {
    bad('envelope payload must be an array of bytes');
  }
  return {
    publisherId: asU64(root.publisher_id, 'publisher_id'),
    sequence: asU64(root.sequence, 'sequence'),
    publishedAtMs: Number(asU64(root.published_at, 'published_at')),
    payload: Uint8Array.from(payload as number[]),
  };
}

/** The 2026 event-plane envelope `{publisher_id, sequence, published_at, payload:[bytes]}`. */
export function decodeNatsEnvelope(text: string): NatsEnvelope {
  return decodeEnvelopeObject(asObject(parse(text), 'envelope'));
}

export function encodeNatsEnvelope(env: NatsEnvelope): string {
  return stringifyJsonWithU64({
    publisher_id: env.publisherId,
    sequence: env.sequence,
    published_at: env.publishedAtMs,
    payload: Array.from(env.payload),
  });
}
