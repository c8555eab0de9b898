// The JSON control messages of the request plane (reference/upstream-wire.md §3-§4).
import { isPayloadCodec, type PayloadCodec } from './payload-codecs.js';

/** Where the worker dials back to stream the response. */
export interface CallHomeInfo {
  address: string;
  subject: string;
  context: string;
  stream_type: 'response';
  /**
   * A dynamo-ts caller's offer to keep the response connection for later streams (see
   * request-plane/call-home-link.ts). Upstream workers ignore the unknown field and dial per stream.
   */
  keep_alive?: boolean;
}

/** The two-part header of a request. */
export interface RequestControlMessage {
  id: string;
  request_type: 'single_in';
  response_type: 'many_out';
  payload_codec?: PayloadCodec;
  connection_info: { transport: 'tcp_server'; info: string };
  /** The request context's metadata (e.g. gRPC `x-dynamo-meta-*`, prefix stripped); omitted when empty. */
  metadata?: Readonly<Record<string, string>>;
  frontend_send_ts_ns?: number;
}

export function buildRequestControl(
  id: string,
  codec: PayloadCodec,
  callHome: CallHomeInfo,
  metadata?: Readonly<Record<string, string>>,
): RequestControlMessage {
  const msg: RequestControlMessage = {
    id,
    request_type: 'single_in',
    response_type: 'many_out',
    payload_codec: codec,
    connection_info: { transport: 'tcp_server', info: JSON.stringify(callHome) },
  };
  if (metadata && Object.keys(metadata).length > 0) msg.metadata = metadata;
  return msg;
}

export interface ParsedRequestControl {
  id: string;
  codec: PayloadCodec;
  callHome: CallHomeInfo;
  /** Undefined when the caller sent none. */
  metadata?: Record<string, string>;
}

/** Reads a request header; throws with a reason when it is not one we can answer. */
export function parseRequestControl(header: Buffer): ParsedRequestControl {
  const msg = JSON.parse(header.toString('utf8')) as Partial<RequestControlMessage>;
  const conn = msg.connection_info;
  if (!conn || conn.transport !== 'tcp_server') {
    throw new Error(`unsupported response transport ${JSON.stringify(conn?.transport ?? null)} (only tcp_server)`);
  }
  const callHome = JSON.parse(conn.info) as CallHomeInfo;
  if (typeof callHome.address !== 'string' || typeof callHome.subject !== 'string') {
    throw new Error('connection_info.info lacks address or subject');
  }
  const codec = msg.payload_codec ?? 'json';
  if (!isPayloadCodec(codec)) throw new Error(`unknown payload_codec ${JSON.stringify(codec)}`);
  return { id: String(msg.id ?? ''), codec, callHome, metadata: stringEntries(msg.metadata) };
}

/** The string-valued entries of a metadata map; anything else in it is ignored. */
function stringEntries(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') (out ??= {})[k] = v;
  return out;
}

/**
 * Header-only control frames (snake_case upstream ControlMessage), and `release`: dynamo-ts's word
 * that a kept response connection's stream is over on the caller's side, so the connection may carry
 * the next one (only on connections whose handshake said `keep_alive`).
 */
export type StreamControl = 'stop' | 'kill' | 'sentinel' | 'release';

export function parseStreamControl(header: Buffer): StreamControl | null {
  const text = header.toString('utf8');
  if (text === '"stop"') return 'stop';
  if (text === '"kill"') return 'kill';
  if (text === '"sentinel"') return 'sentinel';
  if (text === '"release"') return 'release';
  return null;
}

/** The body of one streamed item: `{"data":<item>,"complete_final":false}`, pre-serialised item. */
export function streamItemJson(itemJson: string): string {
  return `{"data":${itemJson},"complete_final":false}`;
}

export const STREAM_END_JSON = '{"complete_final":true}';

/**
 * The body of one streamed item, as `streamItemJson(JSON.stringify(item))` writes it. The commonest,
 * an engine's decode step in its envelope (`{data: {token_ids: [..], index: n}}` or `{data:
 * {token_ids: [..]}}`, nothing else), is written from a template: JSON.stringify costs ~0.3 µs for it, a tenth of a worker's runtime per
 * token. Anything else goes to JSON.stringify.
 */
export function streamItemBodyJson(item: unknown): string {
  return tokenItemJson(item) ?? streamItemJson(JSON.stringify(item));
}

function tokenItemJson(item: unknown): string | null {
  if (typeof item !== 'object' || item === null || !onlyKeys(item, 'data')) return null;
  const out = (item as { data: unknown }).data as { token_ids?: unknown; index?: unknown } | null;
  if (typeof out !== 'object' || out === null) return null;
  // With the choice index, or token ids alone (the sparse form).
  const sparse = onlyKeys(out, 'token_ids');
  if (!sparse && !onlyKeys(out, 'token_ids', 'index')) return null;
  const ids = out.token_ids;
  if (!Array.isArray(ids) || Object.getPrototypeOf(ids) !== Array.prototype || (!sparse && !isJsonInteger(out.index))) return null;
  let list = '';
  for (let i = 0; i < ids.length; i++) {
    const id: unknown = ids[i];
    if (!isJsonInteger(id)) return null;
    list += i === 0 ? `${id}` : `,${id}`;
  }
  return sparse ? `{"data":{"data":{"token_ids":[${list}]}},"complete_final":false}` : `{"data":{"data":{"token_ids":[${list}],"index":${out.index}}},"complete_final":false}`;
}

/** An integer that JSON and a template literal write alike (`-0` is `0` in both). */
function isJsonInteger(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x);
}

/** `value` has exactly these own enumerable keys, in this order, and is a plain object. */
function onlyKeys(value: object, ...keys: string[]): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let i = 0;
  for (const k in value) if (k !== keys[i++]) return false;
  return i === keys.length;
}

/** A streamed body as received: the item (absent on the end frame) and whether the stream is complete. */
export interface StreamItemBody {
  data?: unknown;
  complete_final?: boolean;
}

const TOKEN_FRAME_HEAD = Buffer.from('{"data":{"data":{"token_ids":[');
const TOKEN_FRAME_INDEX = Buffer.from('],"index":');
const TOKEN_FRAME_TAIL = Buffer.from('}},"complete_final":false}');
/** The sparse form's end (Python engines send only the keys they have: `{"token_ids":[11]}`). */
const SPARSE_FRAME_TAIL = Buffer.from(']}},"complete_final":false}');
/** Digits of a number the fast path reads (below 2^53, so exact as a double). */
const MAX_DIGITS = 15;

/**
 * Parses a streamed body as JSON.parse would. The commonest one, an engine's decode step in its
 * Annotated envelope with token ids and choice index and nothing else
 * (`{"data":{"data":{"token_ids":[..],"index":n}},"complete_final":false}`), or token ids alone as
 * Python engines send it, is read from the bytes directly: JSON.parse costs ~0.7 µs for it, about a
 * tenth of the frontend's work per token over TCP. Anything else, or anything unusual in that
 * shape, goes to JSON.parse.
 */
export function parseStreamItemBody(body: Buffer): StreamItemBody {
  return tokenFrame(body) ?? (JSON.parse(body.toString('utf8')) as StreamItemBody);
}

function tokenFrame(body: Buffer): StreamItemBody | null {
  const end = body.length - TOKEN_FRAME_TAIL.length;
  if (end <= TOKEN_FRAME_HEAD.length || !startsWith(body, TOKEN_FRAME_HEAD, 0) || !startsWith(body, TOKEN_FRAME_TAIL, end)) return null;
  const ids: number[] = [];
  let at = TOKEN_FRAME_HEAD.length;
  for (;;) {
    const next = readNumber(body, at, end);
    if (next < 0) return null;
    ids.push(numberValue);
    at = next;
    if (body[at] !== 0x2c) break;
    at++;
  }
  // `]}},"complete_final":false}` ends the sparse form right after the ids.
  if (at === body.length - SPARSE_FRAME_TAIL.length && startsWith(body, SPARSE_FRAME_TAIL, at)) return { data: { data: { token_ids: ids } }, complete_final: false };
  if (!startsWith(body, TOKEN_FRAME_INDEX, at)) return null;
  at = readNumber(body, at + TOKEN_FRAME_INDEX.length, end);
  if (at !== end) return null;
  return { data: { data: { token_ids: ids, index: numberValue } }, complete_final: false };
}

/** The value readNumber read last. */
let numberValue = 0;

/** Reads a non-negative JSON integer at `at` into numberValue; the offset after it, or -1. */
function readNumber(body: Buffer, at: number, end: number): number {
  let value = 0;
  let i = at;
  while (i < end && i - at < MAX_DIGITS) {
    const c = body[i]!;
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
    i++;
  }
  // No digits, a leading zero (not JSON), or more digits than the fast path reads.
  if (i === at || (body[at] === 0x30 && i - at > 1) || (i < end && body[i]! >= 0x30 && body[i]! <= 0x39)) return -1;
  numberValue = value;
  return i;
}

function startsWith(body: Buffer, bytes: Buffer, at: number): boolean {
  if (at + bytes.length > body.length) return false;
  for (let i = 0; i < bytes.length; i++) if (body[at + i] !== bytes[i]) return false;
  return true;
}
