// The bytes of one upstream request: its head, then its body, in one buffer (one socket write).
// A token-in prompt's ids are written as digits straight into the buffer, after the body's other
// fields: JSON.stringify took 25-70 µs of a request's way out for a 1.3k-id prompt (most of the
// bridge's own time before the upstream hears of it; the holey arrays of a prefix-cache hit take
// its slow path), the digits a few µs (bench/RESULTS.md).

/** An upstream request's body: its fields as JSON, and a token-in prompt's ids, sent last as `prompt`. */
export interface RequestBody {
  json: string;
  ids: readonly number[] | null;
}

const COMMA = 0x2c;
const ZERO = 0x30;
/** Room for a content length (a body of up to 10^16 bytes). */
const LENGTH_ROOM = 16;
/** Bytes an id may take in the buffer: the ten digits of an int32 and its comma. */
const ID_ROOM = 11;
/** A buffer up to this size is kept for the next request (a 32k-token prompt's fits). */
const KEPT_MAX = 256 * 1024;

/** Builds requests' bytes, each in one buffer; a buffer the socket no longer holds is reused by the next. */
export class RequestBytes {
  private spare: Buffer | null = null;
  /** The whole buffer the last request was built in. */
  private last: Buffer | null = null;

  /**
   * The head (`headStart`, the body's byte length, `headEnd`; latin1, as HTTP reads it) and the
   * body (UTF-8): the same bytes as the head followed by the JSON of the fields with `prompt` last.
   */
  build(headStart: string, headEnd: string, body: RequestBody): Buffer {
    let { json, ids } = body;
    // Anything but non-negative int32s (which a prompt's ids are) is written as JSON writes it.
    if (ids && !allInt32(ids)) {
      json = withPrompt(json, JSON.stringify(ids));
      ids = null;
    }
    const jsonBytes = Buffer.byteLength(json);
    const room = headStart.length + LENGTH_ROOM + headEnd.length;
    const size = room + jsonBytes + (ids ? PROMPT_FIELD.length + ids.length * ID_ROOM + 1 : 0);
    const spare = this.spare;
    const buf = spare && spare.length >= size ? spare : Buffer.allocUnsafe(size);
    this.spare = null;
    this.last = buf;
    let at = room;
    if (!ids) at += buf.write(json, at);
    else {
      // The fields without the closing brace (one byte: the bytes before it are whole characters).
      at += buf.write(json, at, jsonBytes - 1);
      at += buf.write(json.length > 2 ? PROMPT_FIELD : PROMPT_FIELD.slice(1), at, 'latin1');
      at = writeIds(buf, at, ids);
      buf[at++] = 0x5d; // ]
      buf[at++] = 0x7d; // }
    }
    const head = `${headStart}${at - room}${headEnd}`;
    const start = room - head.length;
    buf.write(head, start, 'latin1');
    return buf.subarray(start, at);
  }

  /** The last request's write left nothing queued (the kernel has its bytes): its buffer serves the next. */
  sent(queuedBytes: number): void {
    const last = this.last;
    this.last = null;
    if (queuedBytes === 0 && last && last.length <= KEPT_MAX) this.spare = last;
  }
}

const PROMPT_FIELD = ',"prompt":[';

/** `json` (an object's) with `prompt` (JSON) as its last field. */
function withPrompt(json: string, prompt: string): string {
  return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"prompt":${prompt}}`;
}

function allInt32(ids: readonly number[]): boolean {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if ((id | 0) !== id || id < 0) return false;
  }
  return true;
}

/**
 * `ids` (non-negative int32s) as decimal numbers separated by commas, at `at`; the offset after
 * them. Integer division (`| 0`): Math.floor of a float division made the loop four times slower.
 */
function writeIds(buf: Buffer, at: number, ids: readonly number[]): number {
  for (let i = 0; i < ids.length; i++) {
    if (i > 0) buf[at++] = COMMA;
    let v = ids[i]! | 0;
    const end = at + digitCount(v);
    for (let p = end - 1; p > at; p--) {
      const q = (v / 10) | 0;
      buf[p] = ZERO + v - q * 10;
      v = q;
    }
    buf[at] = ZERO + v;
    at = end;
  }
  return at;
}

function digitCount(v: number): number {
  if (v < 100_000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10_000 ? 4 : 5;
  return v < 1_000_000 ? 6 : v < 10_000_000 ? 7 : v < 100_000_000 ? 8 : v < 1_000_000_000 ? 9 : 10;
}
