// Worker side of a response stream: dial the caller's address, then handshake, prologue, one
// body-only frame per item, `complete_final`, sentinel (reference/upstream-wire.md §4). A "stop" or
// "kill" from the caller on the same socket aborts the handler.
import type { Socket } from 'node:net';
import { neverWritten, pushItems, writeCoalescer, type CoalescedStream, type StreamSink } from '../../protocols/index.js';
import {
  encodeTwoPartHeader,
  parseStreamControl,
  STREAM_END_JSON,
  streamItemBodyJson,
  streamItemJson,
  TwoPartBatch,
  TwoPartDecoder,
  type CallHomeInfo,
} from '../codecs/index.js';
import { ENGINE_SHUTDOWN, ENGINE_SHUTDOWN_MESSAGE } from './engine-shutdown.js';
import { errorDetailOf } from './error-detail.js';
import { dialSocket, type TcpTls } from './tcp-tls.js';

/** Opens the response connection and sends the handshake. */
export function dialCallHome(info: CallHomeInfo, onControl: (ctl: 'stop' | 'kill') => void, tls?: TcpTls): Promise<Socket> {
  const { host, port } = splitAddress(info.address);
  return new Promise((resolve, reject) => {
    const { socket, ready } = dialSocket(host, port, tls);
    socket.once('error', reject);
    socket.once(ready, () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      const decoder = new TwoPartDecoder();
      socket.on('data', (chunk: Buffer) => {
        for (const msg of decoder.push(chunk)) {
          const ctl = parseStreamControl(msg.header);
          if (ctl === 'stop' || ctl === 'kill') onControl(ctl);
        }
      });
      socket.write(encodeTwoPartHeader({ subject: info.subject, stream_type: 'response' }));
      resolve(socket);
    });
  });
}

/**
 * Streams `items` to an open response connection and closes it; resolves once the stream is over.
 * Items are taken pushed (no promise per item when the handler's stream can push) and leave through
 * the process's write coalescer: the first at once, later ones of a busy worker several event-loop
 * turns' worth per socket write (a write costs about as much as the frames it carries, on both ends).
 */
export function sendResponseStream(
  socket: Socket,
  items: AsyncIterator<unknown>,
  first: IteratorResult<unknown> | Error,
  signal: AbortSignal,
  stringify: (value: unknown) => string = JSON.stringify,
): Promise<void> {
  if (first instanceof Error) {
    socket.write(encodeTwoPartHeader({ error: errorDetailOf(first) }));
    socket.end(encodeTwoPartHeader('sentinel'));
    return Promise.resolve();
  }
  return new Promise((resolve) => new ResponseStream(socket, items, signal, stringify, resolve).start(first));
}

/** One response stream's frames on their way to the caller's socket. */
class ResponseStream implements CoalescedStream, StreamSink<unknown> {
  readonly lastWrite = neverWritten();
  private readonly frames = new TwoPartBatch();
  /** Queued with the coalescer. */
  private queued = false;
  private over = false;

  constructor(
    private readonly socket: Socket,
    private readonly items: AsyncIterator<unknown>,
    private readonly signal: AbortSignal,
    private readonly stringify: (value: unknown) => string,
    private readonly done: () => void,
  ) {}

  start(first: IteratorResult<unknown>): void {
    this.frames.header('{"error":null}');
    if (first.done) {
      this.end();
      return;
    }
    this.item(first.value);
    if (this.over) return;
    // The caller stopped, the connection closed, or the worker shuts down: no more items.
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    if (this.signal.aborted) this.onAbort();
    else pushItems(this.items, this);
  }

  item(value: unknown): void {
    if (this.over) return;
    try {
      this.frames.body(this.stringify === JSON.stringify ? streamItemBodyJson(value) : streamItemJson(this.stringify(value)));
    } catch (err) {
      this.stop();
      this.fail(err);
      return;
    }
    if (this.queued) return;
    this.queued = true;
    writeCoalescer.add(this);
  }

  end(): void {
    if (this.over) return;
    this.finish(null);
  }

  fail(error: unknown): void {
    if (this.over) return;
    this.finish(shutDown(this.signal) ? null : errorDetailOf(error as Error));
  }

  /** The coalescer's turn: every queued frame in one socket write. */
  write(): void {
    this.queued = false;
    if (!this.socket.destroyed && !this.frames.isEmpty) this.socket.write(this.frames.take());
  }

  /** The caller stopped, the connection closed, or the worker shuts down: the end goes once the handler has stopped. */
  private readonly onAbort = (): void => {
    if (this.over) return;
    this.over = true;
    const stopped = this.stop();
    if (stopped) void stopped.then(this.closeLater, this.closeLater);
    else this.finish(null);
  };

  private readonly closeLater = (): void => this.finish(null);

  /** Stops the handler's stream (nothing more is pushed); what it returns settles once the handler has. */
  private stop(): Promise<unknown> | undefined {
    const closing = this.items.return?.(undefined);
    closing?.catch(() => undefined);
    return closing;
  }

  /** The end frames (after an error item when `error` is given, or the shutdown's), written at once. */
  private finish(error: string | null): void {
    this.over = true;
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.queued) writeCoalescer.remove(this);
    this.queued = false;
    if (!this.socket.destroyed) {
      if (error !== null) this.frames.body(streamItemJson(errorItem(error)));
      else if (shutDown(this.signal)) this.frames.body(streamItemJson(errorItem(ENGINE_SHUTDOWN_MESSAGE)));
      this.frames.body(STREAM_END_JSON);
      this.frames.header('"sentinel"');
      this.socket.end(this.frames.take());
    }
    this.done();
  }
}

/** The worker is shutting down: the request ends with the engine-shutdown error, whatever the engine did on abort. */
function shutDown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason === ENGINE_SHUTDOWN;
}

/** An Annotated error event. */
function errorItem(message: string): string {
  return JSON.stringify({ event: 'error', comment: [message], error: message });
}

/** `host:port` / `[v6]:port`, with an optional `tcp://`. */
export function splitAddress(address: string): { host: string; port: number } {
  const bare = address.replace(/^tcp:\/\//, '');
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(bare) ?? /^([^:]+):(\d+)$/.exec(bare);
  if (!m) throw new Error(`bad address ${JSON.stringify(address)}`);
  return { host: m[1]!, port: Number(m[2]) };
}
