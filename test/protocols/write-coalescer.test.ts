// The write coalescer: what it writes and in which order (never how soon: no timings).
import test from 'node:test';
import assert from 'node:assert/strict';
import { neverWritten, WriteCoalescer, type CoalescedStream } from '../../src/protocols/streams/write-coalescer.js';

/** A stream that records its writes of queued frames. */
class FakeStream implements CoalescedStream {
  readonly lastWrite = neverWritten();
  readonly writes: string[] = [];
  queued = '';

  constructor(private readonly coalescer: WriteCoalescer) {}

  push(frame: string): void {
    const queued = this.queued !== '';
    this.queued += frame;
    if (!queued) this.coalescer.add(this);
  }

  write(): void {
    this.writes.push(this.queued);
    this.queued = '';
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100_000 && !done(); i++) await nextTurn();
  assert.ok(done(), 'never written');
}

test("a stream's first frame goes out at once; the frames queued after it go out together", async () => {
  const coalescer = new WriteCoalescer();
  const stream = new FakeStream(coalescer);
  stream.push('a');
  assert.deepEqual(stream.writes, ['a']);
  stream.push('b');
  stream.push('c');
  assert.deepEqual(stream.writes, ['a'], 'later frames wait for the coalescer');
  await until(() => stream.writes.length > 1);
  assert.deepEqual(stream.writes, ['a', 'bc']);
});

test('busy streams write every frame, in order, with fewer writes than frames', async () => {
  const coalescer = new WriteCoalescer();
  const streams = Array.from({ length: 16 }, () => new FakeStream(coalescer));
  const frames = 200;
  for (let i = 0; i < frames; i++) {
    for (const s of streams) s.push(`${i},`);
    await nextTurn();
  }
  await until(() => streams.every((s) => s.queued === ''));
  const expected = Array.from({ length: frames }, (_, i) => `${i},`).join('');
  for (const s of streams) {
    assert.equal(s.writes.join(''), expected);
    assert.ok(s.writes.length < frames, `${s.writes.length} writes for ${frames} frames`);
  }
});

test('a removed stream is not written', async () => {
  const coalescer = new WriteCoalescer();
  const gone = new FakeStream(coalescer);
  const kept = new FakeStream(coalescer);
  gone.push('first');
  kept.push('first');
  gone.push('x');
  kept.push('y');
  coalescer.remove(gone);
  await until(() => kept.writes.length > 1);
  assert.deepEqual(gone.writes, ['first']);
});

test('of many queued streams, those removed (first, middle, last) are not written and the others all are; a removed one may queue again', async () => {
  const coalescer = new WriteCoalescer();
  const streams = Array.from({ length: 7 }, () => new FakeStream(coalescer));
  for (const s of streams) s.push('first');
  for (const s of streams) s.push('x');
  const removed = [streams[0]!, streams[3]!, streams[6]!];
  for (const s of removed) coalescer.remove(s);
  coalescer.remove(streams[3]!);
  const kept = streams.filter((s) => !removed.includes(s));
  await until(() => kept.every((s) => s.writes.length > 1));
  for (const s of kept) assert.deepEqual(s.writes, ['first', 'x']);
  for (const s of removed) assert.deepEqual(s.writes, ['first']);
  const again = removed[1]!;
  again.queued = '';
  again.push('y');
  await until(() => again.writes.length > 1);
  assert.deepEqual(again.writes, ['first', 'y']);
});
