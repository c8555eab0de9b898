// Requests to one upstream server over undici's connection pool, through its `dispatch` callbacks
// (no web streams, no promise per read), with the same interface as UpstreamConnections.
import { Pool, type Dispatcher } from 'undici';
import type { BodyReader, Exchange, SentRequest, UpstreamReply } from './upstream-connections.js';

export class UpstreamPool {
  private readonly pool: Pool;
  private readonly fixedHeaders: string[];

  constructor(baseUrl: string, headers: Readonly<Record<string, string>>) {
    // The engine keeps its own response timeout; undici's are off.
    this.pool = new Pool(new URL(baseUrl).origin, { headersTimeout: 0, bodyTimeout: 0 });
    this.fixedHeaders = Object.entries(headers).flat();
  }

  post(path: string, headers: string[], body: string, _fresh: boolean, exchange: Exchange): SentRequest {
    const call = new PoolCall(exchange);
    this.pool.dispatch({ origin: undefined, path, method: 'POST', headers: this.fixedHeaders.length ? [...headers, ...this.fixedHeaders] : headers, body }, call);
    return call;
  }

  close(): void {
    void this.pool.close();
  }
}

class PoolCall implements Dispatcher.DispatchHandlers, UpstreamReply, SentRequest {
  status = 0;
  private abort: ((err?: Error) => void) | null = null;
  private reader: BodyReader | null = null;
  private early: Buffer[] | null = null;
  private ended = false;
  private lostWith: Error | null = null;
  private discarded = false;
  private over = false;
  private answered = false;

  constructor(private readonly exchange: Exchange) {}

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    if (this.over) abort();
  }

  onHeaders(statusCode: number): boolean {
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.answered = true;
    this.exchange.reply(this);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.over || this.discarded) return true;
    if (this.reader) this.reader.body(chunk);
    else (this.early ??= []).push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.over) return;
    this.ended = true;
    if (this.reader) this.finish();
  }

  onError(err: Error): void {
    if (this.over) return;
    if (!this.answered) {
      this.over = true;
      this.exchange.failed(err);
      return;
    }
    this.lostWith = err;
    if (this.reader) this.finish();
  }

  read(reader: BodyReader): void {
    this.reader = reader;
    const early = this.early;
    this.early = null;
    if (early) for (const bytes of early) if (this.reader === reader && !this.over) reader.body(bytes);
    if (this.ended || this.lostWith) this.finish();
  }

  discard(): void {
    this.discarded = true;
    this.reader = null;
    this.early = null;
  }

  destroy(): void {
    if (this.over) return;
    this.over = true;
    this.abort?.();
  }

  private finish(): void {
    const reader = this.reader;
    if (this.over || !reader) return;
    this.over = true;
    if (this.lostWith) reader.lost(this.lostWith);
    else reader.end();
  }
}
