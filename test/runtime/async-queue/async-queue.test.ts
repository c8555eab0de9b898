// The single-consumer queue behind the mocker's per-request outputs and the request plane's
// response streams: order, end and failure semantics, synchronous draining, and long backlogs.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncQueue } from '../../../src/runtime/index.js';

async function drain<T extends {} | null>(queue: AsyncQueue<T>): Promise<T[]> {
  const got: T[] = [];
  for await (const item of queue) got.push(item);
  return got;
}

test('items come out in order, including those pushed while the consumer waits', async () => {
  const queue = new AsyncQueue<number | null>();
  queue.push(1);
  queue.push(null);
  const done = drain(queue);
  await new Promise((r) => setImmediate(r));
  queue.push(3);
  await new Promise((r) => setTimeout(r, 5));
  queue.push(4);
  queue.end();
  assert.deepEqual(await done, [1, null, 3, 4]);
});

test('end keeps the queued items and ignores later pushes', async () => {
  const queue = new AsyncQueue<string>();
  queue.push('a');
  queue.end();
  queue.push('b');
  assert.equal(queue.isEnded, true);
  assert.deepEqual(await drain(queue), ['a']);
});

test('a failure is thrown after the queued items; failing an ended queue does nothing', async () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  queue.fail(new Error('worker lost'));
  queue.fail(new Error('second'));
  const got: number[] = [];
  await assert.rejects(
    (async () => {
      for await (const n of queue) got.push(n);
    })(),
    /worker lost/,
  );
  assert.deepEqual(got, [1]);

  const ended = new AsyncQueue<number>();
  ended.end();
  ended.fail(new Error('too late'));
  assert.deepEqual(await drain(ended), []);
});

test('shift takes buffered items synchronously; wait resolves on push and on end', async () => {
  const queue = new AsyncQueue<number>();
  assert.equal(queue.shift(), undefined);
  let woke = false;
  const waiting = queue.wait().then(() => (woke = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(woke, false, 'nothing queued yet');
  queue.push(7);
  queue.push(8);
  await waiting;
  assert.equal(queue.shift(), 7);
  assert.equal(queue.shift(), 8);
  assert.equal(queue.shift(), undefined);

  const ending = queue.wait();
  queue.end();
  await ending;
  await queue.wait();
  assert.equal(queue.shift(), undefined);
});

test('a failed queue throws from shift once drained', () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  queue.fail('engine crashed');
  assert.equal(queue.shift(), 1);
  assert.throws(() => queue.shift(), (err) => err === 'engine crashed');
});

test('a long backlog drained while more arrives keeps every item in order', () => {
  const queue = new AsyncQueue<number>();
  const got: number[] = [];
  let next = 0;
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 500; i++) queue.push(next++);
    for (let i = 0; i < 300; i++) got.push(queue.shift()!);
  }
  let item: number | undefined;
  while ((item = queue.shift()) !== undefined) got.push(item);
  assert.equal(got.length, next);
  assert.ok(got.every((n, i) => n === i));
});
