// The request bodies' codecs, by the name a worker publishes (`request_plane_codec`) and a request's
// header repeats (`payload_codec`): the frontend encodes with its worker's codec, the worker decodes
// with the header's. Chosen per request and small, so a plain table, not a lazily imported one.
import { decode as decodeMsgpack, encode as encodeMsgpack } from '@msgpack/msgpack';
import { parseJsonLossless, stringifyJsonWithU64 } from './lossless-json.js';

export const PAYLOAD_CODEC_NAMES = ['json', 'msgpack'] as const;

export type PayloadCodec = (typeof PAYLOAD_CODEC_NAMES)[number];

/** msgpack bodies carry u64 ids: 64-bit integers go both ways as bigint, never rounded. */
export const MSGPACK_OPTIONS = { useBigInt64: true } as const;

export interface BodyCodec {
  /** `exactIntegers`: the value may hold bigints, to be written exactly. */
  encode(value: unknown, exactIntegers: boolean): Uint8Array | string;
  /** `exactIntegers`: integers beyond 2^53 come back as bigint. */
  decode(body: Buffer, exactIntegers: boolean): unknown;
}

export const PAYLOAD_CODECS: { readonly [C in PayloadCodec]: BodyCodec } = {
  // Exact integers cost a slower stringify and parse, so only calls that need them pay for them.
  json: {
    encode: (value, exactIntegers) => (exactIntegers ? stringifyJsonWithU64(value) : JSON.stringify(value)),
    decode: (body, exactIntegers) => (exactIntegers ? parseJsonLossless : JSON.parse)(body.toString('utf8')),
  },
  msgpack: {
    encode: (value) => encodeMsgpack(value, MSGPACK_OPTIONS),
    decode: (body) => decodeMsgpack(body, MSGPACK_OPTIONS),
  },
};

export function isPayloadCodec(name: unknown): name is PayloadCodec {
  return typeof name === 'string' && Object.hasOwn(PAYLOAD_CODECS, name);
}
