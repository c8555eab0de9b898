// peekFirst's pushed form: the peeked first item, then the rest; a sink that throws on the peeked
// item closes the source and hears the error (as pushItems does for every other item).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peekFirst } from '../../../../src/frontends/http/model-route/stream-guard.js';
import type { PushingIterator } from '../../../../src/protocols/index.js';

/** A pulled source of `items`, recording whether it was closed. */
function source(items: number[]): AsyncIterator<number> & { closed: boolean } {
  let at = 0;
  const it = {
    closed: false,
    next: async (): Promise<IteratorResult<number>> => (at < items.length ? { done: false, value: items[at++]! } : { done: true, value: undefined }),
    return: async (): Promise<IteratorResult<number>> => {
      it.closed = true;
      return { done: true, value: undefined };
    },
  };
  return it;
}

test('pushed after the peek: the peeked item, then the rest, then the end', async () => {
  const guarded = (await peekFirst(source([1, 2, 3]), 100)) as PushingIterator<number>;
  const got: number[] = [];
  await new Promise<void>((resolve, reject) => guarded.pushTo({ item: (n) => got.push(n), end: resolve, fail: reject }));
  assert.deepEqual(got, [1, 2, 3]);
});

test('a sink that throws on the peeked item closes the source and hears the error', async () => {
  const src = source([1, 2, 3]);
  const guarded = (await peekFirst(src, 100)) as PushingIterator<number>;
  const got: number[] = [];
  const failure = await new Promise<unknown>((resolve) =>
    guarded.pushTo({
      item: (n) => {
        got.push(n);
        throw new Error('consumer broke');
      },
      end: () => resolve(null),
      fail: resolve,
    }),
  );
  assert.equal((failure as Error).message, 'consumer broke');
  assert.deepEqual(got, [1]);
  assert.equal(src.closed, true);
});
