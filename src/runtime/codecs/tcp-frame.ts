// The TCP request plane's request frame and ack (reference/upstream-wire.md §3), big-endian:
//   request: u16 path_len | path | u16 headers_len | headers JSON | u32 payload_len | payload
//   ack:     u32 len | bytes   (empty = accepted; "Server unavailable: ..." = rejected)
import { ByteAccumulator } from './frame-reader.js';

export interface RequestFrame {
  /** `{instance_id:x}/{endpoint}` (older workers: the bare endpoint name). */
  path: string;
  headers: Record<string, string>;
  /** A two-part message. */
  payload: Buffer;
}

/**
 * A ping: a frame with this header (and no payload) asks only for an ack, which proves the worker
 * process reads its request plane. dynamo-ts workers ack it as accepted and do nothing else; any
 * other answer (upstream's rejection of the unknown path `PING_PATH`) proves the same.
 */
export const PING_HEADER = 'x-dynamo-ping';
export const PING_PATH = '_ping';

/** Upstream's default `DYN_TCP_MAX_MESSAGE_SIZE`: 32 MiB. */
export const DEFAULT_TCP_MAX_MESSAGE_SIZE = 32 * 1024 * 1024;

export function encodeRequestFrame(path: string, headers: Record<string, string>, payload: Uint8Array): Buffer {
  return Buffer.concat([requestFrameHead(path, headers, payload.length), payload]);
}

/**
 * A request frame up to its payload, which follows it on the wire: a sender writes the two back to
 * back rather than copying a request's payload into one buffer with its head.
 */
export function requestFrameHead(path: string, headers: Record<string, string>, payloadLength: number): Buffer {
  const p = Buffer.from(path, 'utf8');
  const h = Buffer.from(JSON.stringify(headers), 'utf8');
  if (p.length > 0xffff || h.length > 0xffff) throw new RangeError('endpoint path or headers longer than 65535 bytes');
  const out = Buffer.allocUnsafe(2 + p.length + 2 + h.length + 4);
  let at = out.writeUInt16BE(p.length, 0);
  at += p.copy(out, at);
  at = out.writeUInt16BE(h.length, at);
  at += h.copy(out, at);
  out.writeUInt32BE(payloadLength, at);
  return out;
}

export class RequestFrameDecoder {
  private readonly acc = new ByteAccumulator();
  constructor(private readonly maxSize: number = DEFAULT_TCP_MAX_MESSAGE_SIZE) {}

  push(chunk: Buffer): RequestFrame[] {
    this.acc.push(chunk);
    const frames: RequestFrame[] = [];
    for (;;) {
      const acc = this.acc;
      if (acc.available < 2) break;
      const pathLen = acc.peekUint(0, 2);
      if (acc.available < 4 + pathLen) break;
      const headersLen = acc.peekUint(2 + pathLen, 2);
      const payloadAt = 4 + pathLen + headersLen;
      if (acc.available < payloadAt + 4) break;
      const payloadLen = acc.peekUint(payloadAt, 4);
      if (payloadAt + 4 + payloadLen > this.maxSize) {
        throw new RangeError(`request frame of ${payloadAt + 4 + payloadLen} bytes exceeds DYN_TCP_MAX_MESSAGE_SIZE (${this.maxSize})`);
      }
      if (acc.available < payloadAt + 4 + payloadLen) break;
      acc.take(2);
      const path = acc.take(pathLen).toString('utf8');
      acc.take(2);
      const headersText = acc.take(headersLen).toString('utf8');
      acc.take(4);
      // A view, not a copy (a copy of a 1k-token request cost ~10 us cold): read buffers are never written again.
      const payload = acc.take(payloadLen);
      frames.push({ path, headers: headersText ? (JSON.parse(headersText) as Record<string, string>) : {}, payload });
    }
    return frames;
  }
}

export function encodeAck(text = ''): Buffer {
  const body = Buffer.from(text, 'utf8');
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

export class AckDecoder {
  private readonly acc = new ByteAccumulator();

  /** Feeds a chunk and returns the ack texts now complete ('' = accepted). */
  push(chunk: Buffer): string[] {
    this.acc.push(chunk);
    const acks: string[] = [];
    while (this.acc.available >= 4) {
      const len = this.acc.peekUint(0, 4);
      if (this.acc.available < 4 + len) break;
      this.acc.take(4);
      acks.push(this.acc.take(len).toString('utf8'));
    }
    return acks;
  }
}

/** Upstream rejects with "Server unavailable: ..." or "Server overloaded: ..."; anything else is accepted. */
export function isRejectionAck(text: string): boolean {
  return text.startsWith('Server unavailable:') || text.startsWith('Server overloaded:');
}
