/**
 * Interleave several async iterables, yielding items as they arrive. Ending early (break/return)
 * closes every source, so their engines are released.
 */
export async function* mergeAsync<T>(sources: AsyncIterable<T>[]): AsyncGenerator<T> {
  if (sources.length === 1) {
    yield* sources[0]!;
    return;
  }
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
