// Upstream's `--router-tracking-hash`: the hash of the sequence identities the router derives for
// its own active-sequence tracking (the blocks of requests in flight, projected load, replica
// sync). `public-xxh3-v1` is the public chain every party can compute. `keyed-xxh3-v1` seeds the
// block and chain XXH3 hashes from a keyed BLAKE3 digest of the request's scope, so identities
// depend on a provider key nobody outside the deployment holds. The indexers (KV events, overlaps)
// keep the public hashes: only what the router derives for itself changes.
import { computeLocalBlockHashes, computeSequenceHashes, type SaltOptions } from '../../../protocols/index.js';
import { blake3Keyed } from './blake3-keyed.js';

export const TRACKING_KEY_BYTES = 32;
const DOMAIN = new TextEncoder().encode('dynamo.router.tracking-hash/keyed-xxh3-v1\0');
/** Scopes whose seeds are remembered; past this the memo starts over (salts can be per tenant). */
const SEED_MEMO = 4096;

/** What keyed identities are bound to besides the key: the model and its routing group. */
export interface TrackingScope {
  readonly model: string;
  readonly routingGroup: string;
}

/** The identities the router tracks a prompt's full blocks by. */
export interface TrackingHash {
  readonly keyed: boolean;
  /** `publicLocal`: the prompt's public local block hashes, which public mode chains as they are. */
  sequenceHashes(tokens: ArrayLike<number>, blockSize: number, salts: SaltOptions, publicLocal: readonly bigint[]): bigint[];
}

export const PUBLIC_TRACKING: TrackingHash = Object.freeze({
  keyed: false,
  sequenceHashes: (_tokens: ArrayLike<number>, _blockSize: number, _salts: SaltOptions, publicLocal: readonly bigint[]) => computeSequenceHashes(publicLocal),
});

/** Field framing of the scope digest: a tag, then a u64 LE length and the bytes. */
function frame(parts: number[][], tag: number, bytes: Uint8Array): void {
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(bytes.length), true);
  parts.push([tag], [...length], [...bytes]);
}

/** An optional field: a tag and a presence byte, then the framed value when present (empty counts as absent). */
function frameOptional(parts: number[][], tag: number, value: string | null | undefined): void {
  if (!value) {
    parts.push([tag, 0]);
    return;
  }
  const bytes = new TextEncoder().encode(value);
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(bytes.length), true);
  parts.push([tag, 1], [...length], [...bytes]);
}

/** A loaded provider key and its epoch id; `scoped` gives a model's keyed identities. */
export class TrackingKey {
  private readonly key: Uint8Array;

  constructor(key: Uint8Array, readonly keyId: string) {
    if (key.length !== TRACKING_KEY_BYTES) throw new Error(`a tracking key has exactly ${TRACKING_KEY_BYTES} bytes; got ${key.length}`);
    this.key = Uint8Array.from(key);
  }

  /** The block and chain seeds of one scope: the first two u64 LE words of its keyed digest. */
  seeds(scope: TrackingScope, blockSize: number, salts: SaltOptions): { block: bigint; chain: bigint } {
    const enc = new TextEncoder();
    const parts: number[][] = [[...DOMAIN]];
    frame(parts, 1, enc.encode(this.keyId));
    frame(parts, 2, enc.encode(scope.model));
    frame(parts, 3, enc.encode(scope.routingGroup));
    const size = new Uint8Array(4);
    new DataView(size.buffer).setUint32(0, blockSize, true);
    frame(parts, 4, size);
    frameOptional(parts, 5, salts.cacheNamespace);
    frameOptional(parts, 6, salts.loraName);
    // Eagle windows are not used for routing hashes here: the flag is always false.
    frame(parts, 7, Uint8Array.of(0));
    const digest = blake3Keyed(this.key, Uint8Array.from(parts.flat()));
    const view = new DataView(digest.buffer);
    return { block: view.getBigUint64(0, true), chain: view.getBigUint64(8, true) };
  }

  scoped(scope: TrackingScope): TrackingHash {
    const memo = new Map<string, { block: bigint; chain: bigint }>();
    return {
      keyed: true,
      sequenceHashes: (tokens, blockSize, salts) => {
        const id = `${blockSize}\u0000${salts.cacheNamespace ?? ''}\u0000${salts.loraName ?? ''}`;
        let seeds = memo.get(id);
        if (!seeds) {
          if (memo.size >= SEED_MEMO) memo.clear();
          memo.set(id, (seeds = this.seeds(scope, blockSize, salts)));
        }
        return computeSequenceHashes(computeLocalBlockHashes(tokens, blockSize, seeds.block), seeds.chain);
      },
    };
  }
}
