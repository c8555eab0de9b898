// The JSON control messages of the request plane (reference/upstream-wire.md §3-§4).

export type PayloadCodec = 'json' | 'msgpack';

/** Where the worker dials back to stream the response. */
export interface CallHomeInfo {
  address: string;
  subject: string;
  context: string;
  stream_type: 'response';
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
  if (codec !== 'json' && codec !== 'msgpack') throw new Error(`unknown payload_codec ${JSON.stringify(codec)}`);
  return { id: String(msg.id ?? ''), codec, callHome, metadata: stringEntries(msg.metadata) };
}

/** The string-valued entries of a metadata map; anything else in it is ignored. */
function stringEntries(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') (out ??= {})[k] = v;
  return out;
}

/** Header-only control frames (snake_case upstream ControlMessage). */
export type StreamControl = 'stop' | 'kill' | 'sentinel';

export function parseStreamControl(header: Buffer): StreamControl | null {
  const text = header.toString('utf8');
  if (text === '"stop"') return 'stop';
  if (text === '"kill"') return 'kill';
  if (text === '"sentinel"') return 'sentinel';
  return null;
}

/** The body of one streamed item: `{"data":<item>,"complete_final":false}`, pre-serialised item. */
export function streamItemJson(itemJson: string): string {
  return `{"data":${itemJson},"complete_final":false}`;
}

export const STREAM_END_JSON = '{"complete_final":true}';

/** msgpack bodies carry u64 ids: 64-bit integers go both ways as bigint, never rounded. */
export const MSGPACK_OPTIONS = { useBigInt64: true } as const;
