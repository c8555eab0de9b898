// An HTTP/1.1 response read from a connection's bytes as they come: the status and the headers
// the client needs, then the body by its framing (chunked, a content length, or up to the close).
// Bytes may be split anywhere between reads. The bridge's upstream calls read their answers with
// it instead of node:http's client, whose request and response streams cost several times the
// bridging itself per call (bench/RESULTS.md).

const CR = 0x0d;
const LF = 0x0a;

/** Where a response's parts go. */
export interface ResponseSink {
  /** The status and headers are in (1xx interim answers are skipped). */
  head(status: number): void;
  /** Body bytes, without the transfer framing; valid only during the call. */
  body(bytes: Buffer): void;
  /** The body is complete. */
  end(): void;
}

/** The response broke the protocol. */
export class MalformedResponseError extends Error {
  readonly code = 'HPE_INVALID';
}

type Phase = 'head' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'length' | 'until-close' | 'done';

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})/;
/** The lengths of the header names the client reads: transfer-encoding, content-length, connection, keep-alive. */
const WANTED_NAME_LENGTHS = new Set([17, 14, 10]);
const MIN_WANTED_NAME = 10;
/** `chunked` as the last transfer coding. */
const CHUNKED_LAST = /(^|,)\s*chunked\s*$/i;

/** A response head larger than this is refused (node:http's limit is 16 KiB). */
const MAX_HEAD = 64 * 1024;

export class Http1ResponseParser {
  private phase: Phase = 'head';
  /** Bytes of a line (or the head) not yet complete. */
  private pending: Buffer | null = null;
  /** Body bytes still expected: of the current chunk, or of the content length. */
  private left = 0;
  private status = 0;
  /** The connection may carry another request once this response is complete. */
  keepAlive = false;
  /** Seconds the server keeps an idle connection (its `keep-alive: timeout=N`); 0: not said. */
  idleTimeoutSecs = 0;

  constructor(private readonly sink: ResponseSink) {}

  get complete(): boolean {
    return this.phase === 'done';
  }

  /** True while nothing of a response has come. */
  get untouched(): boolean {
    return this.phase === 'head' && this.pending === null && this.status === 0;
  }

  /** Ready for the next response on the same connection. */
  reset(): void {
    this.phase = 'head';
    this.pending = null;
    this.left = 0;
    this.status = 0;
    this.keepAlive = false;
    this.idleTimeoutSecs = 0;
  }

  /** Reads `bytes`; throws MalformedResponseError. Bytes after a complete response are ignored. */
  push(bytes: Buffer): void {
    let at = 0;
    while (at < bytes.length && this.phase !== 'done') {
      switch (this.phase) {
        case 'head':
          at = this.readHead(bytes, at);
          break;
        case 'length':
        case 'chunk-data': {
          const n = Math.min(this.left, bytes.length - at);
          this.left -= n;
          this.sink.body(bytes.subarray(at, at + n));
          at += n;
          if (this.left > 0) break;
          if (this.phase === 'length') this.finish();
          else this.phase = 'chunk-end';
          break;
        }
        case 'until-close':
          this.sink.body(at === 0 ? bytes : bytes.subarray(at));
          at = bytes.length;
          break;
        default:
          at = this.readLine(bytes, at);
      }
    }
  }

  /** The connection closed: a body read up to the close ends here; false when the response was cut. */
  close(): boolean {
    if (this.phase === 'until-close') {
      this.finish();
      return true;
    }
    return this.phase === 'done';
  }

  private readHead(bytes: Buffer, at: number): number {
    const all = this.pending ? Buffer.concat([this.pending, bytes.subarray(at)]) : at === 0 ? bytes : bytes.subarray(at);
    const consumedBefore = this.pending ? this.pending.length : 0;
    const end = all.indexOf('\r\n\r\n');
    if (end < 0) {
      if (all.length > MAX_HEAD) throw new MalformedResponseError('the response head is too large');
      this.pending = Buffer.from(all);
      return bytes.length;
    }
    this.pending = null;
    this.parseHead(all.toString('latin1', 0, end));
    // Where the body starts in `bytes`.
    return at + end + 4 - consumedBefore;
  }

  private parseHead(head: string): void {
    const firstEnd = head.indexOf('\r\n');
    // Anchored and ending in digits: it matches the head as it matches its first line.
    const statusLine = STATUS_LINE.exec(head);
    if (!statusLine) throw new MalformedResponseError(`not an HTTP/1.x status line: ${JSON.stringify(head.slice(0, Math.min(40, firstEnd < 0 ? 40 : firstEnd)))}`);
    const status = Number(statusLine[2]);
    let chunked = false;
    let length = -1;
    let connection = '';
    let keepAliveTimeout = 0;
    // Header lines are read in place; only names of the lengths the client reads are compared.
    for (let at = firstEnd + 2; firstEnd >= 0 && at <= head.length; ) {
      let end = head.indexOf('\r\n', at);
      if (end < 0) end = head.length;
      const colon = head.indexOf(':', at);
      if (colon <= at || colon > end) throw new MalformedResponseError(`a malformed header line: ${JSON.stringify(head.slice(at, Math.min(end, at + 40)))}`);
      // A name shorter than the shortest wanted one is not read at all.
      const trimmed = colon - at < MIN_WANTED_NAME ? '' : head.slice(at, colon).trim();
      const name = WANTED_NAME_LENGTHS.has(trimmed.length) ? trimmed.toLowerCase() : '';
      if (name === 'transfer-encoding') {
        const value = head.slice(colon + 1, end).trim();
        chunked = value === 'chunked' || CHUNKED_LAST.test(value);
      }
      else if (name === 'content-length') {
        const value = head.slice(colon + 1, end).trim();
        if (!/^\d+$/.test(value) || (length >= 0 && Number(value) !== length)) throw new MalformedResponseError(`a bad content-length: ${value}`);
        length = Number(value);
      } else if (name === 'connection') connection = head.slice(colon + 1, end).trim().toLowerCase();
      else if (name === 'keep-alive') keepAliveTimeout = Number(/timeout=(\d+)/i.exec(head.slice(colon + 1, end))?.[1] ?? 0);
      at = end + 2;
    }
    // 1xx answers are interim: the real one follows on the same connection.
    if (status >= 100 && status < 200 && status !== 101) return;
    this.status = status;
    const http10 = statusLine[1] === '0';
    this.keepAlive = connection === 'keep-alive' || (http10 ? /\bkeep-alive\b/.test(connection) : !/\bclose\b/.test(connection));
    this.idleTimeoutSecs = keepAliveTimeout;
    this.sink.head(status);
    if (status === 204 || status === 304) this.finish();
    else if (chunked) this.phase = 'chunk-size';
    else if (length >= 0) {
      this.left = length;
      this.phase = 'length';
      if (length === 0) this.finish();
    } else {
      // Read up to the close: the connection cannot carry another request.
      this.keepAlive = false;
      this.phase = 'until-close';
    }
  }

  /** One CRLF-ended line of the chunked framing: a size, the end of a chunk's data, or a trailer. */
  private readLine(bytes: Buffer, at: number): number {
    const lf = bytes.indexOf(LF, at);
    if (lf < 0) {
      const rest = bytes.subarray(at);
      this.pending = this.pending ? Buffer.concat([this.pending, rest]) : Buffer.from(rest);
      if (this.pending.length > 1024) throw new MalformedResponseError('a chunk framing line is too long');
      return bytes.length;
    }
    let line = bytes.toString('latin1', at, lf > at && bytes[lf - 1] === CR ? lf - 1 : lf);
    if (this.pending) {
      line = (this.pending.toString('latin1') + bytes.toString('latin1', at, lf)).replace(/\r$/, '');
      this.pending = null;
    }
    this.framingLine(line);
    return lf + 1;
  }

  private framingLine(line: string): void {
    switch (this.phase) {
      case 'chunk-size': {
        // Extensions after `;` are ignored.
        const size = /^([0-9a-fA-F]+)\s*(;.*)?$/.exec(line);
        if (!size) throw new MalformedResponseError(`a bad chunk size: ${JSON.stringify(line.slice(0, 20))}`);
        this.left = parseInt(size[1]!, 16);
        this.phase = this.left === 0 ? 'trailers' : 'chunk-data';
        return;
      }
      case 'chunk-end':
        if (line !== '') throw new MalformedResponseError('a chunk longer than its size');
        this.phase = 'chunk-size';
        return;
      case 'trailers':
        if (line === '') this.finish();
        return;
    }
  }

  private finish(): void {
    this.phase = 'done';
    this.sink.end();
  }
}
