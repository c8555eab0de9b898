import type { ServerResponse } from 'node:http';

/**
 * A stream that wrote less than this long ago waits out the rest before writing again. At real
 * token rates (one every several ms) nothing waits; a burst of tokens shares one socket write
 * instead of paying a syscall each, which was half the CPU of a fast stream (bench/RESULTS.md).
 */
const MIN_FLUSH_INTERVAL_MS = 1;

/**
 * Server-sent events onto a raw Node response. Events queued in one event-loop turn go out as a
 * single socket write (on this machine that lifts a bare SSE server from ~0.5M to ~0.8M events/s),
 * and a stream writes at most once per MIN_FLUSH_INTERVAL_MS.
 */
export class SseWriter {
  private pending: string[] = [];
  private scheduled = false;
  private closed = false;
  private lastFlushAt = -Infinity;
  private wroteSinceTick = false;
  private keepAlive: NodeJS.Timeout | undefined;
  private readonly flushBound = (): void => this.flush();

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
    // Headers leave at once so clients see the stream open before the first token.
    res.flushHeaders();
    res.once('close', () => {
      this.closed = true;
      clearInterval(this.keepAlive);
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

  end(): void {
    clearInterval(this.keepAlive);
    this.flush();
    if (!this.isClosed) this.res.end();
    this.closed = true;
  }

  private push(frame: string): void {
    if (this.isClosed) return;
    this.pending.push(frame);
    if (!this.scheduled) {
      this.scheduled = true;
      const wait = this.lastFlushAt + MIN_FLUSH_INTERVAL_MS - performance.now();
      if (wait > 0) setTimeout(this.flushBound, wait);
      else setImmediate(this.flushBound);
    }
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    this.lastFlushAt = performance.now();
    this.wroteSinceTick = true;
    const chunk = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    if (!this.isClosed) this.res.write(chunk);
  }
}
