// The single-consumer queue behind the mocker's per-request outputs and the request plane's
// response streams: order, end and failure semantics, closing, and long backlogs.

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

test('next resolves a waiting consumer with the pushed item; buffered items come first, in order', async () => {
  const queue = new AsyncQueue<number>();
  let settled = false;
  const pending = queue.next().then((r) => ((settled = true), r));
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'nothing queued yet');
  queue.push(7);
  queue.push(8);
  assert.deepEqual(await pending, { done: false, value: 7 });
  assert.deepEqual(await queue.next(), { done: false, value: 8 });
  const ending = queue.next();
  queue.end();
  assert.deepEqual(await ending, { done: true, value: undefined });
  assert.deepEqual(await queue.next(), { done: true, value: undefined });
});

test('a failure rejects a waiting consumer; whenClosed hears each way of closing once', async () => {
  const failing = new AsyncQueue<number>();
  const heard: unknown[] = [];
  failing.whenClosed((how, error) => heard.push([how, error]));
  const pending = failing.next();
  failing.fail('engine crashed');
  await assert.rejects(pending, (err) => err === 'engine crashed');
  await assert.rejects(failing.next(), (err) => err === 'engine crashed');
  assert.deepEqual([...heard], [['failed', 'engine crashed']]);

  const ended = new AsyncQueue<number>();
  ended.whenClosed((how) => heard.push(how));
  ended.push(1);
  ended.end();
  assert.deepEqual(heard.length, 1, 'not closed while an item is left');
  await ended.next();
  await ended.next();
  assert.equal(heard[1], 'ended');

  const left = new AsyncQueue<number>();
  left.whenClosed((how) => heard.push(how));
  const waiting = left.next();
  assert.deepEqual(await left.return(), { done: true, value: undefined });
  assert.deepEqual(await waiting, { done: true, value: undefined });
  left.push(2);
  assert.deepEqual(await left.next(), { done: true, value: undefined }, 'pushes after return are dropped');
  assert.deepEqual(heard.slice(2), ['returned']);
});

test('breaking out of for await closes the queue as returned', async () => {
  const queue = new AsyncQueue<number>();
  let how: string | undefined;
  queue.whenClosed((h) => (how = h));
  queue.push(1);
  queue.push(2);
  for await (const n of queue) if (n === 1) break;
  assert.equal(how, 'returned');
  assert.equal(queue.isEnded, true);
});

test('a long backlog drained while more arrives keeps every item in order', async () => {
  const queue = new AsyncQueue<number>();
  const got: number[] = [];
  let next = 0;
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 500; i++) queue.push(next++);
    for (let i = 0; i < 300; i++) got.push((await queue.next()).value as number);
  }
  queue.end();
  got.push(...(await drain(queue)));
  assert.equal(got.length, next);
  assert.ok(got.every((n, i) => n === i));
});
