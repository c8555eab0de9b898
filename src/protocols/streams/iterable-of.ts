// A stream made by a function when it is iterated. An object literal with a computed key (the
// `{ [Symbol.asyncIterator]: ... }` form) is defined by a runtime call, about half a microsecond each
// in Node 20: felt on the small requests' path, where every stage makes one per request. An
// instance of a class whose prototype has the method costs a plain allocation.

/** The async iterable whose iterator `iterate` makes, each time it is iterated. */
export function iterableOf<T>(iterate: () => AsyncIterator<T>): AsyncIterable<T> {
  return new MadeIterable(iterate);
}

class MadeIterable<T> implements AsyncIterable<T> {
  constructor(private readonly iterate: () => AsyncIterator<T>) {}

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.iterate();
  }
}
