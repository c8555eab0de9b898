// The queue's push form (what the token path consumes): items handed over after the producer's
// code, in order, then the end or the failure; a consumer stopping inside an item; a throwing sink.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamSink } from '../../../src/protocols/index.js';
import { AsyncQueue, queueStream, type QueueClose } from '../../../src/runtime/index.js';

function recording<T>(log: string[]): StreamSink<T> {
  return {
    item: (v) => log.push(`item:${String(v)}`),
    end: () => log.push('end'),
    fail: (err) => log.push(`fail:${(err as Error).message}`),
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('pushed items come after the producer code, buffered ones first, then the end; the close is "ended"', async () => {
  const queue = new AsyncQueue<number | null>();
  const log: string[] = [];
  const closes: QueueClose[] = [];
  queue.whenClosed((how) => closes.push(how));
  queue.push(1);
  queue.pushTo(recording(log));
  queue.push(null);
  assert.deepEqual(log, [], 'nothing is handed over inside the producer');
  await tick();
  assert.deepEqual(log, ['item:1', 'item:null']);
  queue.push(3);
  queue.end();
  queue.push(4);
  await tick();
  assert.deepEqual(log, ['item:1', 'item:null', 'item:3', 'end']);
  assert.deepEqual(closes, ['ended']);
});

test('a failure reaches the sink after the queued items; the close is "failed"', async () => {
  const queue = new AsyncQueue<number>();
  const log: string[] = [];
  const closes: string[] = [];
  queue.whenClosed((how, err) => closes.push(`${how}:${(err as Error | undefined)?.message}`));
  queue.pushTo(recording(log));
  queue.push(1);
  queue.fail(new Error('worker lost'));
  await tick();
  assert.deepEqual(log, ['item:1', 'fail:worker lost']);
  assert.deepEqual(closes, ['failed:worker lost']);
});

test('many queues pushed in one go are all handed over in one microtask, in push order', async () => {
  const queues = [new AsyncQueue<number>(), new AsyncQueue<number>(), new AsyncQueue<number>()];
  const log: string[] = [];
  queues.forEach((q, i) => q.pushTo({ item: (v) => log.push(`${i}:${v}`), end: () => log.push(`${i}:end`), fail: () => undefined }));
  queues[2]!.push(20);
  queues[0]!.push(0);
  queues[2]!.push(21);
  queues[1]!.end();
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(log, ['2:20', '2:21', '0:0', '1:end']);
});

test('a consumer that stops inside an item hears nothing more, and the close is "returned"', async () => {
  const queue = new AsyncQueue<number>();
  const log: string[] = [];
  const closes: QueueClose[] = [];
  queue.whenClosed((how) => closes.push(how));
  queue.pushTo({
    item: (v) => {
      log.push(`item:${v}`);
      if (v === 2) void queue.return();
    },
    end: () => log.push('end'),
    fail: () => log.push('fail'),
  });
  for (const v of [1, 2, 3]) queue.push(v);
  queue.end();
  await tick();
  assert.deepEqual(log, ['item:1', 'item:2']);
  assert.deepEqual(closes, ['returned']);
});

test('a sink that throws: the producer is told to stop (closed "returned") and the sink hears the error', async () => {
  const queue = new AsyncQueue<number>();
  const log: string[] = [];
  const closes: QueueClose[] = [];
  queue.whenClosed((how) => closes.push(how));
  queue.pushTo({
    item: () => {
      throw new Error('bad consumer');
    },
    end: () => log.push('end'),
    fail: (err) => log.push(`fail:${(err as Error).message}`),
  });
  queue.push(1);
  queue.push(2);
  await tick();
  assert.deepEqual(log, ['fail:bad consumer']);
  assert.deepEqual(closes, ['returned']);
  assert.equal(queue.isEnded, true);
});

test('a stream whose queue opens later pushes once it is open, tap first', async () => {
  const queue = new AsyncQueue<number>();
  const tapped: number[] = [];
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const stream = queueStream(async () => {
    await opened;
    return { queue, tap: (v: number) => tapped.push(v) };
  });
  const log: string[] = [];
  const it = stream[Symbol.asyncIterator]() as AsyncIterator<number> & { pushTo(sink: StreamSink<number>): void };
  it.pushTo(recording(log));
  queue.push(5);
  await tick();
  assert.deepEqual(log, []);
  open();
  await tick();
  queue.push(6);
  queue.end();
  await tick();
  assert.deepEqual(log, ['item:5', 'item:6', 'end']);
  assert.deepEqual(tapped, [5, 6]);
});

test('a stream that fails to open fails its sink', async () => {
  const stream = queueStream<number>(async () => {
    throw new Error('no route');
  });
  const log: string[] = [];
  (stream[Symbol.asyncIterator]() as AsyncIterator<number> & { pushTo(sink: StreamSink<number>): void }).pushTo(recording(log));
  await tick();
  assert.deepEqual(log, ['fail:no route']);
});

test('a queue is refillable only while empty and pushing to a sink that reads in place', async () => {
  const queue = new AsyncQueue<number>();
  assert.equal(queue.refillable, false, 'no sink yet');
  const log: string[] = [];
  queue.pushTo({ ...recording<number>(log), readsInPlace: true });
  assert.equal(queue.refillable, true);
  queue.push(1);
  assert.equal(queue.refillable, false, 'the pushed item is not handed over yet');
  await tick();
  assert.deepEqual(log, ['item:1']);
  assert.equal(queue.refillable, true);

  const keeping = new AsyncQueue<number>();
  keeping.pushTo(recording(log));
  assert.equal(keeping.refillable, false, 'a sink that may keep items');
});
