import type { Readable } from 'node:stream';

/**
 * The messages of a client stream, one at a time: the stream is paused while the caller works on
 * a message, so requests are handled strictly in order. Ends on half-close or cancellation.
 */
export async function* readMessages<T>(stream: Readable): AsyncGenerator<T> {
  const queue: T[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  const onData = (msg: T): void => {
    queue.push(msg);
    stream.pause();
    notify();
  };
  const onEnd = (): void => {
    ended = true;
    notify();
  };
  stream.on('data', onData);
  stream.once('end', onEnd);
  stream.once('close', onEnd);
  stream.once('cancelled', onEnd);
  try {
    for (;;) {
      const next = queue.shift();
      if (next !== undefined) {
        yield next;
        stream.resume();
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('close', onEnd);
    stream.off('cancelled', onEnd);
  }
}
