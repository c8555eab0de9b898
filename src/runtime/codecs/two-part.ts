// Upstream's TwoPartCodec: `u64 header_len | u64 body_len | u64 checksum | header | body`, big-endian.
// The checksum is 0 in release builds and only checked when non-zero in debug builds; we write 0.
import { ByteAccumulator } from './frame-reader.js';

export interface TwoPartMessage {
  /** Empty when the message has no header. */
  header: Buffer;
  /** Empty when the message has no body. */
  body: Buffer;
}

const PREFIX = 24;
const EMPTY = Buffer.alloc(0);

/** Text parts are written into the message as UTF-8 where they go, not made into buffers of their own first. */
export function encodeTwoPart(header: Uint8Array | string | null, body: Uint8Array | string | null): Buffer {
  const headerLen = byteLength(header);
  const bodyLen = byteLength(body);
  const out = Buffer.allocUnsafe(PREFIX + headerLen + bodyLen);
  writePrefix(out, 0, headerLen, bodyLen);
  writePart(out, PREFIX, header);
  writePart(out, PREFIX + headerLen, body);
  return out;
}

function byteLength(part: Uint8Array | string | null): number {
  if (part === null) return 0;
  return typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length;
}

function writePart(out: Buffer, at: number, part: Uint8Array | string | null): void {
  if (part === null) return;
  if (typeof part === 'string') out.write(part, at, 'utf8');
  else out.set(part, at);
}

/** The 24-byte prefix at `at`: both lengths as u64 (a part is under 2^32 bytes: the frame limit is far below), checksum 0. */
function writePrefix(out: Buffer, at: number, headerLen: number, bodyLen: number): void {
  out.writeUInt32BE(0, at);
  out.writeUInt32BE(headerLen, at + 4);
  out.writeUInt32BE(0, at + 8);
  out.writeUInt32BE(bodyLen, at + 12);
  out.writeUInt32BE(0, at + 16);
  out.writeUInt32BE(0, at + 20);
}

/**
 * Two-part messages with JSON text parts, queued one by one and encoded together into one buffer
 * (one socket write for all of them): a response stream's items, its end and its sentinel. Each
 * message is a header-only or a body-only one, as a response stream's are.
 */
export class TwoPartBatch {
  /** Each message's text; `headerOnly` says which part it is. */
  private readonly texts: string[] = [];
  private readonly headerOnly: boolean[] = [];

  get isEmpty(): boolean {
    return this.texts.length === 0;
  }

  header(json: string): void {
    this.texts.push(json);
    this.headerOnly.push(true);
  }

  body(json: string): void {
    this.texts.push(json);
    this.headerOnly.push(false);
  }

  /** Every queued message, encoded in order; the batch is empty after. */
  take(): Buffer {
    const { texts, headerOnly } = this;
    let size = 0;
    for (let i = 0; i < texts.length; i++) size += PREFIX + Buffer.byteLength(texts[i]!, 'utf8');
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < texts.length; i++) {
      const n = out.write(texts[i]!, at + PREFIX, 'utf8');
      if (headerOnly[i]) writePrefix(out, at, n, 0);
      else writePrefix(out, at, 0, n);
      at += PREFIX + n;
    }
    texts.length = 0;
    headerOnly.length = 0;
    return out;
  }
}

/** A header-only message whose header is the JSON of `value`. */
export function encodeTwoPartHeader(value: unknown): Buffer {
  return encodeTwoPart(JSON.stringify(value), null);
}

/** A body-only message whose body is the JSON of `value`. */
export function encodeTwoPartBody(json: string): Buffer {
  return encodeTwoPart(null, json);
}

/** Decodes one whole message (e.g. a request frame's payload). */
export function decodeTwoPart(buf: Buffer, maxSize = Number.MAX_SAFE_INTEGER): TwoPartMessage {
  if (buf.length < PREFIX) throw new RangeError('two-part message shorter than its 24-byte prefix');
  const acc = new ByteAccumulator();
  acc.push(buf);
  const msg = readTwoPart(acc, maxSize);
  if (!msg || acc.available !== 0) throw new RangeError('two-part message lengths do not match its size');
  return msg;
}

/** Streaming decoder for a socket that carries a sequence of two-part messages. */
export class TwoPartDecoder {
  private readonly acc = new ByteAccumulator();
  constructor(private readonly maxSize = Number.MAX_SAFE_INTEGER) {}

  /**
   * Feeds a chunk and returns every message now complete. The parts are views of socket buffers,
   * which are never written again, so they stay valid.
   */
  push(chunk: Buffer): TwoPartMessage[] {
    this.acc.push(chunk);
    const out: TwoPartMessage[] = [];
    let msg: TwoPartMessage | null;
    while ((msg = readTwoPart(this.acc, this.maxSize)) !== null) out.push(msg);
    return out;
  }
}

function readTwoPart(acc: ByteAccumulator, maxSize: number): TwoPartMessage | null {
  if (acc.available < PREFIX) return null;
  const headerLen = acc.peekUint(0, 8);
  const bodyLen = acc.peekUint(8, 8);
  if (headerLen + bodyLen > maxSize) throw new RangeError(`two-part message of ${headerLen + bodyLen} bytes exceeds the ${maxSize}-byte limit`);
  if (acc.available < PREFIX + headerLen + bodyLen) return null;
  acc.take(PREFIX);
  const header = headerLen ? acc.take(headerLen) : EMPTY;
  const body = bodyLen ? acc.take(bodyLen) : EMPTY;
  return { header, body };
}

