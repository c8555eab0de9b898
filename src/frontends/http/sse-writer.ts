import type { ServerResponse } from 'node:http';
import { neverWritten, sseCoalescer, type CoalescedStream } from './sse-coalescer.js';

/**
 * Server-sent events onto a raw Node response. Events are queued and written by the process's
 * coalescer (sse-coalescer.ts): on the next event-loop turn, or later while the process is busy,
 * so one socket write carries many events.
 */
export class SseWriter implements CoalescedStream {
  readonly lastWrite = neverWritten();
  private pending = '';
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
      sseCoalescer.remove(this);
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
    sseCoalescer.remove(this);
    const rest = this.pending;
    this.pending = '';
    if (!this.isClosed) this.res.end(rest);
    this.closed = true;
    this.headersOut = true;
  }

  /** The coalescer's turn: one socket write of every queued event. */
  write(): void {
    if (this.pending.length === 0) return;
    this.wroteSinceTick = true;
    const chunk = this.pending;
    this.pending = '';
    if (this.isClosed) return;
    // Once the headers are out on its socket, a chunked response's frame goes to the socket as one
    // string with its chunk framing: `res.write` would queue four pieces behind a cork and a
    // nextTick, then write them with writev, for every write of every stream.
    const socket = this.res.socket;
    if (socket && this.res.chunkedEncoding && this.headersOut) socket.write(chunkFrame(chunk));
    else this.res.write(chunk);
    this.headersOut = true;
  }

  private push(frame: string): void {
    if (this.isClosed) return;
    const queued = this.pending.length > 0;
    this.pending += frame;
    if (!queued) sseCoalescer.add(this);
  }
}

/**
 * One chunk of a chunked response as bytes: `<hex size>\r\n<events>\r\n`. Measuring the events'
 * UTF-8 length flattens the queued frames once; encoding them into the buffer then reads that flat
 * string, where a framing string around them would be flattened again by the socket write.
 */
function chunkFrame(events: string): Buffer {
  const size = Buffer.byteLength(events);
  const head = `${size.toString(16)}\r\n`;
  const frame = Buffer.allocUnsafe(head.length + size + 2);
  frame.write(head, 0, 'latin1');
  frame.write(events, head.length, 'utf8');
  frame[frame.length - 2] = 0x0d;
  frame[frame.length - 1] = 0x0a;
  return frame;
}
