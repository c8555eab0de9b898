// Kept-alive HTTP/1.1 connections to one upstream server, and the requests sent on them. A request
// is written as one buffer (head and body, request-bytes.ts) on an idle connection, the most recently used first, or
// on a new one; its answer is read by Http1ResponseParser and handed over as it comes. A connection
// whose answer completed goes back to the idle list when the server keeps it; one abandoned mid-way
// is closed. Idle connections do not hold the process open (as node:http's agent).
import { validateHeaderName, validateHeaderValue } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { Http1ResponseParser, type ResponseSink } from './http1-response.js';
import { RequestBytes, type RequestBody } from './request-bytes.js';

/** Where one request's answer goes before its head. */
export interface Exchange {
  /** The status and headers are in: the body follows through `reply.read`. */
  reply(reply: UpstreamReply): void;
  /** No answer: the connection failed or closed first (code ECONNRESET when it closed). */
  failed(err: NodeJS.ErrnoException): void;
}

/** Where an answer's body goes. */
export interface BodyReader {
  body(bytes: Buffer): void;
  end(): void;
  /** The connection went before the body's end. */
  lost(err: Error): void;
}

/** An answer whose head came. */
export interface UpstreamReply {
  readonly status: number;
  /** The body, from its start (bytes that came before the reader are kept for it). */
  read(reader: BodyReader): void;
  /** Nothing more is wanted: the rest is read and dropped, so the connection can carry the next request. */
  discard(): void;
  /** Closes the connection now. */
  destroy(): void;
}

/** One request being sent or answered: abandoning it closes its connection. */
export interface SentRequest {
  destroy(): void;
}

/** TCP keep-alive probes of a kept connection (node:http's agent default). */
const TCP_KEEPALIVE_MS = 1000;
/** An idle connection is not used past the server's own idle timeout less this margin. */
const IDLE_MARGIN_MS = 1000;

export class UpstreamConnections {
  private readonly idle: Connection[] = [];
  private readonly host: string;
  private readonly port: number;
  private readonly tls: boolean;
  /** The head's lines after the content length. */
  private readonly fixedHead: string;
  private readonly bytes = new RequestBytes();
  /** A header the caller gave that HTTP cannot carry: every request fails with it. */
  private readonly headError: Error | null = null;

  constructor(baseUrl: string, headers: Readonly<Record<string, string>>) {
    const url = new URL(baseUrl);
    this.tls = url.protocol === 'https:';
    this.host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = Number(url.port || (this.tls ? 443 : 80));
    let fixed = '';
    try {
      for (const [name, value] of Object.entries(headers)) {
        validateHeaderName(name);
        validateHeaderValue(name, value);
        fixed += `${name}: ${value}\r\n`;
      }
    } catch (err) {
      this.headError = err as Error;
    }
    this.fixedHead = `${fixed}Host: ${url.host}\r\nConnection: keep-alive\r\n`;
  }

  /**
   * Sends `POST path` with `body` and `headers` (lines `name: value\r\n`); `fresh`: on a new
   * connection, not a kept one. Throws only for a header given at construction that HTTP cannot carry.
   */
  post(path: string, headers: string, body: RequestBody, fresh: boolean, exchange: Exchange): SentRequest {
    if (this.headError) throw this.headError;
    const request = this.bytes.build(`POST ${path} HTTP/1.1\r\n${headers}content-length: `, `\r\n${this.fixedHead}\r\n`, body);
    const conn = (fresh ? null : this.take()) ?? this.dial();
    const sent = conn.send(request, exchange);
    this.bytes.sent(conn.socket.writableLength);
    return sent;
  }

  /** Closes the idle connections (those in use close when their answers end). */
  close(): void {
    for (const c of this.idle.splice(0)) c.socket.destroy();
  }

  private take(): Connection | null {
    const now = performance.now();
    for (let c = this.idle.pop(); c; c = this.idle.pop()) {
      if (!c.socket.destroyed && now < c.usableUntil) return c;
      c.socket.destroy();
    }
    return null;
  }

  private dial(): Connection {
    const socket = this.tls
      ? tls.connect({ host: this.host, port: this.port, servername: net.isIP(this.host) ? undefined : this.host })
      : net.connect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, TCP_KEEPALIVE_MS);
    return new Connection(socket, (c) => this.release(c), (c) => this.forget(c));
  }

  private release(c: Connection): void {
    c.socket.unref();
    this.idle.push(c);
  }

  private forget(c: Connection): void {
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
  }
}

/** One socket to the server, carrying one request at a time. */
class Connection implements ResponseSink {
  private readonly parser = new Http1ResponseParser(this);
  private call: Call | null = null;
  /** performance.now() past which the server may have closed this idle connection. */
  usableUntil = Infinity;

  constructor(
    readonly socket: net.Socket,
    private readonly released: (c: Connection) => void,
    private readonly closed: (c: Connection) => void,
  ) {
    socket.on('data', (bytes: Buffer) => this.data(bytes));
    socket.on('error', (err: NodeJS.ErrnoException) => this.gone(err));
    socket.on('close', () => this.gone(null));
  }

  send(request: Buffer, exchange: Exchange): SentRequest {
    const call = new Call(this, exchange);
    this.call = call;
    this.socket.ref();
    this.socket.write(request);
    return call;
  }

  head(status: number): void {
    this.call?.head(status);
  }

  body(bytes: Buffer): void {
    this.call?.body(bytes);
  }

  end(): void {
    // Delivered once the bytes of this read are parsed (see data): the parser is then reset for reuse.
  }

  /** The call gave up on its answer: the connection is closed. */
  abandon(call: Call): void {
    if (this.call !== call) return;
    this.call = null;
    this.socket.destroy();
  }

  private data(bytes: Buffer): void {
    const call = this.call;
    if (!call) {
      // Bytes nobody asked for: the connection cannot be trusted with another request.
      this.socket.destroy();
      return;
    }
    try {
      this.parser.push(bytes);
    } catch (err) {
      this.call = null;
      this.socket.destroy();
      call.gone(err as Error);
      return;
    }
    if (!this.parser.complete || this.call !== call) return;
    this.call = null;
    const { keepAlive, idleTimeoutSecs } = this.parser;
    this.parser.reset();
    if (keepAlive && !this.socket.destroyed) {
      this.usableUntil = idleTimeoutSecs > 0 ? performance.now() + idleTimeoutSecs * 1000 - IDLE_MARGIN_MS : Infinity;
      this.released(this);
    } else this.socket.destroy();
    call.complete();
  }

  private gone(err: NodeJS.ErrnoException | null): void {
    const call = this.call;
    this.call = null;
    this.closed(this);
    if (!call) return;
    // A body read up to the close is complete at the close.
    if (!err && call.answered && this.parser.close()) call.complete();
    else call.gone(err);
  }
}

/** One request on a connection: its exchange until the head, then its reply. */
class Call implements UpstreamReply, SentRequest {
  status = 0;
  answered = false;
  private reader: BodyReader | null = null;
  /** Body bytes that came before the reader. */
  private early: Buffer[] | null = null;
  private ended = false;
  private lostWith: Error | null = null;
  private discarded = false;
  private over = false;

  constructor(
    private readonly conn: Connection,
    private readonly exchange: Exchange,
  ) {}

  head(status: number): void {
    this.status = status;
    this.answered = true;
    this.exchange.reply(this);
  }

  body(bytes: Buffer): void {
    if (this.over || this.discarded) return;
    if (this.reader) this.reader.body(bytes);
    else (this.early ??= []).push(bytes);
  }

  complete(): void {
    if (this.over) return;
    this.ended = true;
    if (this.reader) this.finish();
  }

  /** The connection failed or closed under this call. */
  gone(err: Error | null): void {
    if (this.over) return;
    if (!this.answered) {
      this.over = true;
      this.exchange.failed(err ?? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      return;
    }
    this.lostWith = err ?? new Error('the connection closed');
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
    this.conn.abandon(this);
  }

  /** The reader hears the end or the loss (not once it discarded the rest). */
  private finish(): void {
    const reader = this.reader;
    if (this.over || !reader) return;
    this.over = true;
    if (this.lostWith) reader.lost(this.lostWith);
    else reader.end();
  }
}
