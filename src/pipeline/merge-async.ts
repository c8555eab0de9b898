/**
 * Interleave several async iterables, yielding items as they arrive. Ending early (break/return)
 * closes every source, so their engines are released. One source is returned as it is: wrapping it
 * would cost a generator hop per token on the common path.
 */
export function mergeAsync<T>(sources: AsyncIterable<T>[]): AsyncIterable<T> {
  return sources.length === 1 ? sources[0]! : interleave(sources);
}

async function* interleave<T>(sources: AsyncIterable<T>[]): AsyncGenerator<T> {
  const iterators = sources.map((s) => s[Symbol.asyncIterator]());
  const inFlight = new Map<number, Promise<{ i: number; r: IteratorResult<T> }>>();
  const pull = (i: number): void => {
    inFlight.set(
      i,
      iterators[i]!.next().then((r) => ({ i, r })),
    );
  };
  iterators.forEach((_, i) => pull(i));
  try {
    while (inFlight.size > 0) {
      const { i, r } = await Promise.race(inFlight.values());
      if (r.done) {
        inFlight.delete(i);
        continue;
      }
      pull(i);
      yield r.value;
    }
  } finally {
    // Closing pending iterators must not throw over the original exit reason.
    await Promise.allSettled([...inFlight.keys()].map((i) => iterators[i]!.return?.()));
  }
}
