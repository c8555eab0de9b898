import type { ServerResponse } from 'node:http';
import { neverWritten, writeCoalescer, type CoalescedStream } from '../../../protocols/index.js';

/** Room before the queued events for a chunk's `<hex size>\r\n` (sizes up to 0xffffff). */
const HEAD_ROOM = 8;
/** Room after them for the chunk's closing `\r\n`. */
const TAIL_ROOM = 2;
/** Under half of Buffer.poolSize: a stream's buffer is a slice of the shared pool. */
const FIRST_CAPACITY = 4000;
/** Strings this short are encoded by a loop here; longer ones by Buffer#write (a native call). */
const SHORT_TEXT = 64;

/**
 * The bytes of a `data:` event that are the same for every event of a kind on a stream: what comes
 * before and after its one varying piece, encoded once per stream.
 */
export class EventTemplate {
  readonly before: Buffer;
  readonly after: Buffer;

  constructor(before: string, after: string) {
    this.before = Buffer.from(`data: ${before}`);
    this.after = Buffer.from(`${after}\n\n`);
  }
}

/**
 * Server-sent events onto a raw Node response. Events are encoded as they are queued, into the
 * bytes of the stream's next chunk, and written by the process's coalescer (protocols/streams/write-coalescer.ts): on
 * the next event-loop turn, or later while the process is busy, so one socket write carries many
 * events. Encoding each event as it comes leaves no long string of queued events to flatten and
 * encode at the write, and a templated event copies its fixed parts as bytes.
 */
export class SseWriter implements CoalescedStream {
  readonly lastWrite = neverWritten();
  /** The next chunk: HEAD_ROOM bytes, then the queued events up to `used`. */
  private buf: Buffer | null = null;
  private used = HEAD_ROOM;
  private closed = false;
  private wroteSinceTick = false;
  /** The headers went to the socket (`headersSent` is true from `writeHead` on, before they do). */
  private headersOut = false;
  private keepAlive: NodeJS.Timeout | undefined;

  /** `keepAliveMs`: write a `: keep-alive` comment whenever the stream stays silent that long. */
  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string> = {},
    keepAliveMs?: number,
  ) {
    // No `connection` header of our own: Node writes keep-alive or close from the client's
    // request, and closes the socket after the stream when the client asked for that.
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...headers,
    });
    // Headers leave with the first event when it is written in this event-loop turn (the route
    // usually has it already: one socket write and one client wake-up less before the first
    // token); otherwise at the end of the turn, so clients see the stream open before it.
    setImmediate(() => {
      if (!this.headersOut && !res.destroyed) res.flushHeaders();
      this.headersOut = true;
    });
    res.once('close', () => {
      this.closed = true;
      clearInterval(this.keepAlive);
      writeCoalescer.remove(this);
    });
    if (keepAliveMs) {
      this.keepAlive = setInterval(() => {
        if (!this.wroteSinceTick) this.comment('keep-alive');
        this.wroteSinceTick = false;
      }, keepAliveMs);
      this.keepAlive.unref();
    }
  }

  get isClosed(): boolean {
    return this.closed || this.res.destroyed;
  }

  /** Queue `data: <json>\n\n`; `json` must already be serialized. */
  data(json: string): void {
    this.push(`data: ${json}\n\n`);
  }

  /** Queue `data: <before><text as a JSON string><after>\n\n` from a template's bytes. */
  templated(template: EventTemplate, text: string): void {
    if (this.isClosed) return;
    const queued = this.used > HEAD_ROOM;
    const { before, after } = template;
    // A JSON string takes at most 6 bytes per UTF-16 unit (a \u escape) and its quotes.
    const buf = this.reserve(before.length + text.length * 6 + 2 + after.length);
    buf.set(before, this.used);
    const at = encodeJsonString(buf, this.used + before.length, text);
    buf.set(after, at);
    this.used = at + after.length;
    if (!queued) writeCoalescer.add(this);
  }

  event(name: string, json: string): void {
    this.push(`event: ${name}\ndata: ${json}\n\n`);
  }

  /** An annotation: the event name, then its value as a `:` comment line (upstream's form). */
  annotation(name: string, json: string): void {
    this.push(`event: ${name}\n: ${json}\n\n`);
  }

  comment(text: string): void {
    this.push(`: ${text}\n\n`);
  }

  /** Write `data: [DONE]` and end the response. */
  done(): void {
    this.push('data: [DONE]\n\n');
    this.end();
  }

  /** Writes what is queued with the end of the response. */
  end(): void {
    clearInterval(this.keepAlive);
    writeCoalescer.remove(this);
    const rest = this.take();
    if (!this.isClosed) {
      if (rest) this.res.end(rest);
      else this.res.end();
    }
    this.closed = true;
    this.headersOut = true;
  }

  /** The coalescer's turn: one socket write of every queued event. */
  write(): void {
    const size = this.used - HEAD_ROOM;
    if (size <= 0) return;
    this.wroteSinceTick = true;
    const buf = this.buf!;
    this.buf = null;
    this.used = HEAD_ROOM;
    if (this.isClosed) return;
    // Once the headers are out on its socket, a chunked response's chunk goes to the socket as one
    // buffer with its framing written around the events: `res.write` would queue four pieces behind
    // a cork and a nextTick, then write them with writev, for every write of every stream.
    const socket = this.res.socket;
    if (socket && this.res.chunkedEncoding && this.headersOut && size <= 0xffffff) {
      socket.write(frameChunk(buf, size));
      // Nothing left queued: the kernel took the bytes during the call and the socket holds no
      // reference to them, so the next chunk reuses the buffer instead of allocating one.
      if (socket.writableLength === 0) this.buf = buf;
    } else {
      this.res.write(buf.subarray(HEAD_ROOM, HEAD_ROOM + size));
    }
    this.headersOut = true;
  }

  private push(frame: string): void {
    if (this.isClosed) return;
    const queued = this.used > HEAD_ROOM;
    const buf = this.reserve(frame.length * 3);
    this.used = encodeText(buf, this.used, frame);
    if (!queued) writeCoalescer.add(this);
  }

  /** The queued events' bytes (a fresh buffer comes for the next: the socket may still hold these). */
  private take(): Buffer | null {
    const buf = this.buf;
    const used = this.used;
    this.buf = null;
    this.used = HEAD_ROOM;
    return buf && used > HEAD_ROOM ? buf.subarray(HEAD_ROOM, used) : null;
  }

  /** The buffer, with room for `bytes` more after what is queued (and for the chunk's tail). */
  private reserve(bytes: number): Buffer {
    const need = this.used + bytes + TAIL_ROOM;
    const buf = this.buf;
    if (buf && need <= buf.length) return buf;
    const grown = Buffer.allocUnsafe(Math.max(need, FIRST_CAPACITY, buf ? buf.length * 2 : 0));
    if (buf) buf.copy(grown, 0, 0, this.used);
    this.buf = grown;
    return grown;
  }
}

/** `text` as UTF-8 into `buf` at `at` (room checked by the caller); the offset after it. */
function encodeText(buf: Buffer, at: number, text: string): number {
  const n = text.length;
  if (n > SHORT_TEXT) return at + buf.write(text, at);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return at + i + buf.write(text.slice(i), at + i);
    buf[at + i] = c;
  }
  return at + n;
}

/**
 * `text` as a JSON string (what JSON.stringify gives) into `buf` at `at`; the offset after it. Short
 * printable ASCII, most tokens' text, is copied without building the string.
 */
function encodeJsonString(buf: Buffer, at: number, text: string): number {
  const n = text.length;
  if (n <= SHORT_TEXT) {
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c) break;
      buf[at + 1 + i] = c;
    }
    if (i === n) {
      buf[at] = 0x22;
      buf[at + 1 + n] = 0x22;
      return at + n + 2;
    }
  }
  return encodeText(buf, at, JSON.stringify(text));
}

/** `<hex size>\r\n<events>\r\n` around the `size` bytes of events after HEAD_ROOM in `buf`. */
function frameChunk(buf: Buffer, size: number): Buffer {
  const hex = size.toString(16);
  const start = HEAD_ROOM - 2 - hex.length;
  for (let i = 0; i < hex.length; i++) buf[start + i] = hex.charCodeAt(i);
  buf[HEAD_ROOM - 2] = 0x0d;
  buf[HEAD_ROOM - 1] = 0x0a;
  const end = HEAD_ROOM + size;
  buf[end] = 0x0d;
  buf[end + 1] = 0x0a;
  return buf.subarray(start, end + 2);
}
