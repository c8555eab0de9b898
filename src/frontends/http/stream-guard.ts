import { ResponseTimeoutError } from '../../protocols/index.js';

/**
 * Steps from `source`, failing with ResponseTimeoutError when none arrives within `timeoutSecs`
 * (and calling `onTimeout` so the engine request is killed). Without a timeout (the default) the
 * source itself is iterated: no generator hop per token.
 */
export function withInactivityTimeout<T>(source: AsyncIterator<T>, timeoutSecs: number | undefined, onTimeout: () => void): AsyncIterable<T> {
  return timeoutSecs ? guardInactivity(source, timeoutSecs, onTimeout) : { [Symbol.asyncIterator]: () => source };
}

async function* guardInactivity<T>(source: AsyncIterator<T>, timeoutSecs: number, onTimeout: () => void): AsyncGenerator<T> {
  try {
    for (;;) {
      const next = await raceTimeout(source.next(), timeoutSecs, onTimeout);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await source.return?.();
  }
}

function raceTimeout<T>(pending: Promise<T>, seconds: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new ResponseTimeoutError(`No response from the backend for ${seconds} s`));
    }, seconds * 1000);
  });
  return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
}

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
  return {
    next: () => {
      const p = pending ?? source.next();
      pending = null;
      return p;
    },
    return: async (value?: unknown) => source.return?.(value) ?? { done: true, value: undefined },
  };
}
