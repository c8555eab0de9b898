import { handOver, pushItems, type PushingIterator } from '../../../protocols/index.js';

/**
 * DYN_HTTP_PRE_COMMIT_ERROR_PEEK_MS: wait up to `peekMs` for the first step before the response is
 * committed, so an error that comes first can still be a plain HTTP error status. Rethrows such an
 * error; otherwise returns an iterator that starts with whatever the peek saw.
 */
export async function peekFirst<T>(source: AsyncIterator<T>, peekMs: number | undefined): Promise<AsyncIterator<T>> {
  if (!peekMs) return source;
  const first = source.next();
  // The race only watches; a later rejection is consumed when the stream reads `first`.
  first.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waited'>((resolve) => {
    timer = setTimeout(() => resolve('waited'), peekMs);
  });
  try {
    await Promise.race([first, waited]);
  } finally {
    clearTimeout(timer);
  }
  let pending: Promise<IteratorResult<T>> | null = first;
  const guarded: PushingIterator<T> = {
    next: () => {
      const p = pending ?? source.next();
      pending = null;
      return p;
    },
    pushTo: (sink) => {
      const peeked = pending;
      pending = null;
      if (!peeked) {
        pushItems(source, sink);
        return;
      }
      peeked.then(
        (r) => {
          if (r.done) {
            sink.end();
            return;
          }
          if (handOver(source, sink, r.value)) pushItems(source, sink);
        },
        (err: unknown) => sink.fail(err),
      );
    },
    return: async (value?: unknown) => source.return?.(value) ?? { done: true, value: undefined },
  };
  return guarded;
}
