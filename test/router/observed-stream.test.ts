// One wrapper per routed stream: observers stacked by several layers, and the silence watchdog on
// a stream that can fail its own read (an open queue) and on one that cannot (a generator).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drainStream } from '../../src/protocols/index.js';
import { observeStream, watchSilence, type StreamObserver } from '../../src/router/index.js';
import { AsyncQueue, queueStream } from '../../src/runtime/index.js';

function recorder(name: string, log: string[]): StreamObserver<number> {
  return { onOutput: (n) => log.push(`${name}:${n}`), onEnd: (err) => log.push(`${name}:end${err ? `:${(err as Error).message}` : ''}`) };
}

async function* numbers(n: number): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) yield i;
}

test('observers added by several layers share one wrapper and each hears every output and one end', async () => {
  const log: string[] = [];
  const inner = observeStream(numbers(2), recorder('a', log));
  const outer = observeStream(inner, recorder('b', log));
  assert.equal(outer, inner, 'the second observer joined the first wrapper');
  const got: number[] = [];
  for await (const n of outer) got.push(n);
  assert.deepEqual(got, [0, 1]);
  assert.deepEqual(log, ['a:0', 'b:0', 'a:1', 'b:1', 'a:end', 'b:end']);
});

test('a stream already being read gets a wrapper of its own', async () => {
  const log: string[] = [];
  const first = observeStream(numbers(1), recorder('a', log));
  const it = first[Symbol.asyncIterator]();
  const second = observeStream({ [Symbol.asyncIterator]: () => it }, recorder('b', log));
  assert.notEqual(second, first);
  for await (const n of second) assert.equal(n, 0);
  assert.deepEqual(log, ['a:0', 'b:0', 'a:end', 'b:end']);
});

test('an early return ends the observers once, without an error', async () => {
  const log: string[] = [];
  const stream = observeStream(numbers(5), recorder('a', log));
  for await (const n of stream) if (n === 1) break;
  assert.deepEqual(log, ['a:0', 'a:1', 'a:end']);
});

function silentWatch(ms: number, silenced: string[]) {
  return { ms, error: () => new Error('silent worker'), onSilent: () => silenced.push('stopped') };
}

test('silence on an open queue: its pending read fails, the call is stopped, observers hear the error', async () => {
  const log: string[] = [];
  const silenced: string[] = [];
  const queue = new AsyncQueue<number>();
  const stream = watchSilence(observeStream(queueStream(async () => ({ queue })), recorder('a', log)), silentWatch(50, silenced));
  const it = stream[Symbol.asyncIterator]();
  queue.push(7);
  assert.deepEqual(await it.next(), { done: false, value: 7 });
  await assert.rejects(it.next(), /silent worker/);
  assert.deepEqual(silenced, ['stopped']);
  assert.equal(queue.isEnded, true, 'the queue itself failed');
  assert.deepEqual(log, ['a:7', 'a:end:silent worker']);
  assert.deepEqual(await it.next(), { done: true, value: undefined });
});

test('silence on a stream that cannot fail itself: the pending read fails all the same', async () => {
  const log: string[] = [];
  const silenced: string[] = [];
  const never: AsyncIterable<number> = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<number>>(() => undefined) }) };
  const stream = watchSilence(observeStream(never, recorder('a', log)), silentWatch(50, silenced));
  const it = stream[Symbol.asyncIterator]();
  await assert.rejects(it.next(), /silent worker/);
  assert.deepEqual(silenced, ['stopped']);
  assert.deepEqual(log, ['a:end:silent worker']);
  assert.deepEqual(await it.return!(), { done: true, value: undefined }, 'nothing to wait for after a silence');
});

test('a slow consumer is not a silent worker: time counts only while a read is pending', async () => {
  const silenced: string[] = [];
  const queue = new AsyncQueue<number>();
  const stream = watchSilence(queueStream(async () => ({ queue })), silentWatch(40, silenced));
  const it = stream[Symbol.asyncIterator]();
  queue.push(1);
  queue.push(2);
  assert.equal((await it.next()).value, 1);
  await new Promise((r) => setTimeout(r, 120));
  assert.equal((await it.next()).value, 2);
  queue.end();
  assert.equal((await it.next()).done, true);
  assert.deepEqual(silenced, []);
});

test('pushed: observers hear each output and the end; a silence fails the consumer and closes the call', async () => {
  const log: string[] = [];
  const got: number[] = [];
  await drainStream(observeStream(numbers(2), recorder('a', log)), (n) => void got.push(n));
  assert.deepEqual(got, [0, 1]);
  assert.deepEqual(log, ['a:0', 'a:1', 'a:end']);

  const silenced: string[] = [];
  const seen: string[] = [];
  const queue = new AsyncQueue<number>();
  let closed = '';
  queue.whenClosed((how) => (closed = how));
  const stream = watchSilence(observeStream(queueStream(async () => ({ queue })), recorder('b', seen)), silentWatch(50, silenced));
  queue.push(7);
  const items: number[] = [];
  await assert.rejects(
    drainStream(stream, (n) => void items.push(n)),
    /silent worker/,
  );
  assert.deepEqual(items, [7]);
  assert.deepEqual(silenced, ['stopped']);
  assert.equal(closed, 'returned', 'the silent call was closed');
  assert.deepEqual(seen, ['b:7', 'b:end:silent worker']);
});
