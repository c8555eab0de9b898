// The token path's fast form of a stream: a stage that can hand its items on as they come takes a
// sink instead of being pulled. Pulling costs every stage a promise, an iterator result and a
// microtask per item; pushing costs a call. Every stage keeps its pull form (`next`/`return`) for
// consumers that pull, and a stage whose inner stream cannot push pulls it on the sink's behalf.

/** Where a pushed stream's items go, then its end or its failure (at most one of the two, once). */
export interface StreamSink<T> {
  item(value: T): void;
  end(): void;
  fail(error: unknown): void;
  /**
   * True when the sink reads each item within `item()` and keeps nothing of it: the stage that
   * makes the items may then refill one object rather than make one per item.
   */
  readonly readsInPlace?: boolean;
}

/**
 * An iterator that can push. After `pushTo` the consumer no longer calls `next()`; `return()` still
 * stops the stream, and after it the sink hears nothing more.
 */
export interface PushingIterator<T> extends AsyncIterator<T> {
  pushTo(sink: StreamSink<T>): void;
}

/** A stream already over when asked to push: its sink hears the end a microtask later, as a pull would. */
export function endLater(sink: StreamSink<unknown>): void {
  queueMicrotask(() => sink.end());
}

/** Sends every item of `iterator` to `sink`: pushed when the iterator can push, else pulled for it. */
export function pushItems<T>(iterator: AsyncIterator<T>, sink: StreamSink<T>): void {
  const pushing = iterator as Partial<PushingIterator<T>>;
  if (typeof pushing.pushTo === 'function') pushing.pushTo(sink);
  else pullInto(iterator, sink);
}

/**
 * Gives `value`, pulled from `iterator`, to `sink`; false when the sink threw. A sink that throws is
 * done with the stream: the iterator is closed and the sink hears why.
 */
export function handOver<T>(iterator: AsyncIterator<T>, sink: StreamSink<T>, value: T): boolean {
  try {
    sink.item(value);
    return true;
  } catch (err) {
    iterator.return?.()?.catch(() => undefined);
    sink.fail(err);
    return false;
  }
}

function pullInto<T>(iterator: AsyncIterator<T>, sink: StreamSink<T>): void {
  const onResult = (r: IteratorResult<T>): void => {
    if (r.done) {
      sink.end();
      return;
    }
    if (handOver(iterator, sink, r.value)) pull();
  };
  const onError = (err: unknown): void => sink.fail(err);
  const pull = (): void => {
    let next: Promise<IteratorResult<T>>;
    try {
      next = iterator.next();
    } catch (err) {
      onError(err);
      return;
    }
    next.then(onResult, onError);
  };
  pull();
}

/**
 * Consumes `stream` through its push form: `onItem` runs for each item as it comes; returning
 * `false` stops the stream (closing it, as leaving a `for await` would). Resolves at the end (or
 * once stopped and closed), rejects with the stream's failure or with what `onItem` threw (the
 * stream closed first). `readsInPlace`: `onItem` keeps nothing of an item past its call, so the
 * stream may hand over one refilled object.
 */
export function drainStream<T>(stream: AsyncIterable<T>, onItem: (item: T) => boolean | void, readsInPlace = false): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  return new Promise<void>((resolve, reject) => pushItems(iterator, new Drain(iterator, onItem, resolve, reject, readsInPlace)));
}

/** drainStream's sink: one object per stream rather than a closure per callback. */
class Drain<T> implements StreamSink<T> {
  private settled = false;

  constructor(
    private readonly iterator: AsyncIterator<T>,
    private readonly onItem: (item: T) => boolean | void,
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
    /** `onItem` keeps nothing of an item (see StreamSink). */
    readonly readsInPlace: boolean,
  ) {}

  item(value: T): void {
    if (this.settled) return;
    let go: boolean | void;
    try {
      go = this.onItem(value);
    } catch (err) {
      this.close(() => this.reject(err));
      return;
    }
    if (go === false) this.close(this.resolve);
  }

  end(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve();
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }

  private close(then: () => void): void {
    this.settled = true;
    const closing = this.iterator.return?.();
    if (closing) closing.then(then, then);
    else then();
  }
}
