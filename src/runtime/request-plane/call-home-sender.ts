// Worker side of a response stream, on its connection to the caller (call-home-link.ts): prologue,
// one body-only frame per item, `complete_final`, sentinel (reference/upstream-wire.md §4). A "stop"
// or "kill" from the caller on the same socket aborts the handler.
import { followAbort, neverWritten, pushItems, unfollowAbort, writeCoalescer, type AbortFollower, type CoalescedStream, type StreamSink } from '../../protocols/index.js';
import { encodeTwoPartHeader, STREAM_END_JSON, streamItemBodyJson, streamItemJson, TwoPartBatch } from '../codecs/index.js';
import type { CallHomeLink } from './call-home-link.js';
import { ENGINE_SHUTDOWN, ENGINE_SHUTDOWN_MESSAGE } from './engine-shutdown.js';
import { errorDetailOf } from './error-detail.js';

/**
 * Streams `items` to an open response connection and ends the stream on it (the connection closes,
 * or waits for the next stream when kept); resolves once the stream is over.
 * Items are taken pushed (no promise per item when the handler's stream can push) and leave through
 * the process's write coalescer: the first at once, later ones of a busy worker several event-loop
 * turns' worth per socket write (a write costs about as much as the frames it carries, on both ends).
 */
export function sendResponseStream(
  link: CallHomeLink,
  items: AsyncIterator<unknown>,
  first: IteratorResult<unknown> | Error,
  signal: AbortSignal,
  stringify: (value: unknown) => string = JSON.stringify,
): Promise<void> {
  if (first instanceof Error) {
    link.finish(Buffer.concat([encodeTwoPartHeader({ error: errorDetailOf(first) }), encodeTwoPartHeader('sentinel')]));
    return Promise.resolve();
  }
  return new Promise((resolve) => new ResponseStream(link, items, signal, stringify, resolve).start(first));
}

/** One response stream's frames on their way to the caller's socket. */
class ResponseStream implements CoalescedStream, StreamSink<unknown>, AbortFollower {
  readonly lastWrite = neverWritten();
  private readonly frames = new TwoPartBatch();
  /** Queued with the coalescer. */
  private queued = false;
  private over = false;

  constructor(
    private readonly link: CallHomeLink,
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
    // Held until what the handler has already pushed is in too: a whole short answer leaves in one
    // write (its end included), and the first item still leaves in this turn.
    this.queued = true;
    this.item(first.value);
    if (this.over) return;
    // The caller stopped, the connection closed, or the worker shuts down: no more items.
    followAbort(this.signal, this);
    if (this.signal.aborted) this.handleEvent();
    else pushItems(this.items, this);
    if (!this.over) process.nextTick(this.writeFirst);
  }

  /** The first frames, with what followed them in the same go; later ones by the coalescer. */
  private readonly writeFirst = (): void => {
    // `queued` has stayed set since start (nothing but the coalescer's write clears it).
    if (!this.over) writeCoalescer.add(this);
  };

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
    if (!this.link.socket.destroyed && !this.frames.isEmpty) this.link.socket.write(this.frames.take());
  }

  /** The caller stopped, the connection closed, or the worker shuts down: the end goes once the handler has stopped. */
  handleEvent(): void {
    if (this.over) return;
    this.over = true;
    const stopped = this.stop();
    if (stopped) void stopped.then(this.closeLater, this.closeLater);
    else this.finish(null);
  }

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
    unfollowAbort(this.signal, this);
    if (this.queued) writeCoalescer.remove(this);
    this.queued = false;
    if (!this.link.socket.destroyed) {
      if (error !== null) this.frames.body(streamItemJson(errorItem(error)));
      else if (shutDown(this.signal)) this.frames.body(streamItemJson(errorItem(ENGINE_SHUTDOWN_MESSAGE)));
      this.frames.body(STREAM_END_JSON);
      this.frames.header('"sentinel"');
      this.link.finish(this.frames.take());
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
