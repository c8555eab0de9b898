import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CancelledError, type EngineClient, type LLMEngineOutput, type PreprocessedRequest } from '../../../src/protocols/index.js';
import { PendingQueue } from '../../../src/router/kv/index.js';
import { KvRouterPolicy, PushRouter } from '../../../src/router/index.js';

async function order(queue: PendingQueue, requests: { jump: number; uncached: number; at: number }[], clock: { t: number }): Promise<number[]> {
  const released: number[] = [];
  const waits = requests.map((r, i) => {
    clock.t = r.at;
    return queue.wait({ priorityJump: r.jump, uncachedTokens: r.uncached }).then(() => released.push(i));
  });
  for (let i = 0; i < requests.length; i++) {
    queue.releaseOne(() => true);
    await Promise.resolve();
  }
  await Promise.all(waits);
  return released;
}

test('fcfs: priority_jump minus arrival offset, higher first', async () => {
  const clock = { t: 0 };
  const q = new PendingQueue('fcfs', () => clock.t);
  // arrivals 0 s, 1 s, 2 s; the last jumps 5 s ahead.
  assert.deepEqual(await order(q, [{ jump: 0, uncached: 10, at: 0 }, { jump: 0, uncached: 1, at: 1000 }, { jump: 5, uncached: 99, at: 2000 }], clock), [2, 0, 1]);
});

test('wspt: (1 + priority_jump) / uncached tokens, shortest work first', async () => {
  const clock = { t: 0 };
  const q = new PendingQueue('wspt', () => clock.t);
  assert.deepEqual(await order(q, [{ jump: 0, uncached: 1000, at: 0 }, { jump: 0, uncached: 10, at: 1 }, { jump: 1, uncached: 1000, at: 2 }, { jump: 0, uncached: 0, at: 3 }], clock), [3, 1, 2, 0]);
});

test('lcfs: latest arrival first; equal keys keep arrival order', async () => {
  const clock = { t: 0 };
  assert.deepEqual(await order(new PendingQueue('lcfs', () => clock.t), [{ jump: 0, uncached: 1, at: 0 }, { jump: 0, uncached: 1, at: 5 }, { jump: 0, uncached: 1, at: 9 }], clock), [2, 1, 0]);
  assert.deepEqual(await order(new PendingQueue('wspt', () => clock.t), [{ jump: 0, uncached: 5, at: 0 }, { jump: 0, uncached: 5, at: 1 }], clock), [0, 1]);
});

test('an aborted waiter leaves the queue with CancelledError', async () => {
  const q = new PendingQueue('fcfs');
  const ac = new AbortController();
  const waiting = q.wait({ priorityJump: 0, uncachedTokens: 1, signal: ac.signal });
  assert.equal(q.size, 1);
  ac.abort();
  await assert.rejects(waiting, CancelledError);
  assert.equal(q.size, 0);
});

test('kv router queues while every worker is over the threshold and releases on the first token', async () => {
  const gates: (() => void)[] = [];
  const engine: EngineClient = {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      await new Promise<void>((r) => gates.push(r));
      yield { token_ids: [1] };
    },
  };
  const policy = new KvRouterPolicy({ blockSize: 4, queueThreshold: 0 });
  const router = new PushRouter('m', policy);
  router.setInstances([{ id: 1n, client: engine, capacity: () => ({ kvUsedBlocks: 0, kvTotalBlocks: 10, maxNumBatchedTokens: 8 }) }]);
  const request = (n: number): PreprocessedRequest => ({
    model: 'm', token_ids: Array.from({ length: n }, (_, i) => i + n), stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [],
  });
  const ctx = (id: string) => ({ requestId: id, signal: new AbortController().signal });
  const outputs: string[] = [];
  const consume = async (id: string, s: AsyncIterable<LLMEngineOutput>) => {
    for await (const _ of s) outputs.push(id);
  };
  const first = consume('a', router.generate(request(8), ctx('a')));
  await new Promise((r) => setImmediate(r));
  assert.equal(policy.sequences.activePrefillTokens(1n), 8);
  const second = consume('b', router.generate(request(4), ctx('b')));
  await new Promise((r) => setImmediate(r));
  assert.equal(policy.queue.size, 1, 'b waits: the only worker has prefill load over 0 x 8');
  assert.equal(gates.length, 1);
  gates.shift()!();
  await first;
  await new Promise((r) => setImmediate(r));
  assert.equal(policy.queue.size, 0);
  gates.shift()!();
  await second;
  assert.deepEqual(outputs, ['a', 'b']);
});
