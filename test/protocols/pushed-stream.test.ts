// Consuming a stream through its push form: a stream that cannot push is pulled for the consumer;
// stopping early closes it; what the consumer throws closes it and rejects; a failure rejects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drainStream } from '../../src/protocols/index.js';
import { AsyncQueue } from '../../src/runtime/index.js';

function closable(n: number, log: string[]): AsyncIterable<number> {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for (let i = 0; i < n; i++) yield i;
      } finally {
        log.push('closed');
      }
    },
  };
}

test('a stream that cannot push is pulled: every item, then the end', async () => {
  const log: string[] = [];
  const got: number[] = [];
  await drainStream(closable(3, log), (n) => void got.push(n));
  assert.deepEqual(got, [0, 1, 2]);
  assert.deepEqual(log, ['closed']);
});

test('returning false stops the stream and closes it before the promise resolves', async () => {
  const log: string[] = [];
  const got: number[] = [];
  await drainStream(closable(10, log), (n) => {
    got.push(n);
    return n < 1;
  });
  assert.deepEqual(got, [0, 1]);
  assert.deepEqual(log, ['closed']);
});

test('what the consumer throws closes the stream and rejects', async () => {
  const queue = new AsyncQueue<number>();
  let closedHow = '';
  queue.whenClosed((how) => (closedHow = how));
  queue.push(1);
  await assert.rejects(
    drainStream(queue, () => {
      throw new Error('cannot frame');
    }),
    /cannot frame/,
  );
  assert.equal(closedHow, 'returned');
});

test('a failing stream rejects after its items', async () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  queue.fail(new Error('worker lost'));
  const got: number[] = [];
  await assert.rejects(
    drainStream(queue, (n) => void got.push(n)),
    /worker lost/,
  );
  assert.deepEqual(got, [1]);
});
