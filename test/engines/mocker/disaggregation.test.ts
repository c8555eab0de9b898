// The mocker's roles in disaggregated serving, and its data-parallel ranks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DataParallelEngine, decodeTimeMs, prefillTimeMs, resolveMockerOptions } from '../../../src/engines/mocker/index.js';
import { Scheduler } from '../../../src/engines/mocker/scheduler.js';
import { createSequence } from '../../../src/engines/mocker/sequence.js';
import type { KvCacheEvent, PreprocessedRequest } from '../../../src/protocols/index.js';
import { collect, fastEngine, ids, prompt, request, vocab } from './helpers.js';

const withHandover = (req: PreprocessedRequest, disaggregated_params: unknown, cached?: number): PreprocessedRequest => ({
  ...req,
  prefill_result: { disaggregated_params, prompt_tokens_details: cached === undefined ? null : { cached_tokens: cached } },
});

test('a prefill engine answers one token whatever max_tokens says, and hands its KV over vLLM-style', async () => {
  const events: KvCacheEvent[] = [];
  const engine = fastEngine({ workerType: 'prefill', blockSize: 16, engineId: 'abc', onKvEvent: (e) => events.push(e) });
  const outs = await collect(engine, request(prompt(40), { maxTokens: 50, minTokens: 10, ignoreEos: true }));
  assert.equal(outs.length, 1);
  assert.equal(outs[0]!.finish_reason, 'length');
  assert.equal(outs[0]!.completion_usage!.completion_tokens, 1);
  assert.deepEqual(outs[0]!.disaggregated_params, {
    kv_transfer_params: { do_remote_prefill: true, do_remote_decode: false, remote_engine_id: 'abc', remote_block_ids: [0, 1, 2] },
  });
  assert.ok(events.some((e) => typeof e.data === 'object' && 'stored' in e.data), 'the prefill engine publishes the prompt blocks it stored');
  engine.close();
});

test('a decode engine given a hand-over skips the prompt prefill: its first step is a decode step', () => {
  const opts = resolveMockerOptions({ workerType: 'decode', blockSize: 16, numGpuBlocks: 1000 });
  const tokens = prompt(400);
  const params = { kv_transfer_params: { remote_block_ids: Array.from({ length: 25 }, (_, i) => i) } };

  const handedOver = new Scheduler(opts, null);
  handedOver.enqueue(createSequence(withHandover(request(tokens, { maxTokens: 4 }), params), 'a', opts, vocab));
  const first = handedOver.schedule();
  assert.equal(first.work[0]!.tokens, 1, 'only the last prompt token runs');
  assert.equal(first.durationMs, decodeTimeMs(handedOver.kv.numActiveBlocks / handedOver.kv.capacity));
  assert.equal(handedOver.numHandovers, 1);

  const local = new Scheduler(opts, null);
  local.enqueue(createSequence(request(tokens, { maxTokens: 4 }), 'b', opts, vocab));
  const own = local.schedule();
  assert.equal(own.work[0]!.tokens, 400);
  assert.equal(own.durationMs, prefillTimeMs(400));
  assert.equal(local.numHandovers, 0);
});

test('a hand-over of fewer blocks leaves the rest of the prompt to prefill; a placeholder hand-over covers the whole prompt', () => {
  const opts = resolveMockerOptions({ workerType: 'decode', blockSize: 16, numGpuBlocks: 1000 });
  const partial = new Scheduler(opts, null);
  partial.enqueue(createSequence(withHandover(request(prompt(100), { maxTokens: 2 }), { kv_transfer_params: { remote_block_ids: [0, 1] } }), 'p', opts, vocab));
  assert.equal(partial.schedule().work[0]!.tokens, 68);

  const dummy = new Scheduler(opts, null);
  dummy.enqueue(createSequence(withHandover(request(prompt(100), { maxTokens: 2 }), 'dummy'), 'd', opts, vocab));
  assert.equal(dummy.schedule().work[0]!.tokens, 1);
});

test('a decode engine reports the prefill worker\'s cached tokens and generates the full answer', async () => {
  const engine = fastEngine({ workerType: 'decode', blockSize: 16 });
  const outs = await collect(engine, withHandover(request(prompt(64), { maxTokens: 6, ignoreEos: true }), 'dummy', 32));
  assert.equal(ids(outs).length, 6);
  const usage = outs.at(-1)!.completion_usage!;
  assert.deepEqual(usage, { prompt_tokens: 64, completion_tokens: 6, total_tokens: 70, prompt_tokens_details: { cached_tokens: 32 } });
  assert.equal(engine.stats().numHandedOverPrompts, 1);
  engine.close();
});

test('data-parallel ranks: a named rank goes to its core, no rank goes round-robin, a bad rank fails', async () => {
  const events: KvCacheEvent[] = [];
  const cores = [0, 1, 2].map((dpRank) => fastEngine({ dpRank, blockSize: 16, onKvEvent: (e) => events.push(e) }));
  const engine = new DataParallelEngine(cores);
  const ctx = () => ({ requestId: 'r', signal: new AbortController().signal });
  const drain = async (req: PreprocessedRequest) => {
    for await (const _ of engine.generate(req, ctx())) void _;
  };
  await drain({ ...request(prompt(40, 1), { maxTokens: 2 }), routing: { dp_rank: 2 } });
  assert.deepEqual(cores.map((c) => c.stats().numFinishedRequests), [0, 0, 1]);
  assert.ok(events.length > 0 && events.every((e) => e.dp_rank === 2), 'the rank publishes its own events');
  for (let i = 0; i < 3; i++) await drain(request(prompt(20, i + 5), { maxTokens: 1 }));
  assert.deepEqual(cores.map((c) => c.stats().numFinishedRequests), [1, 1, 2]);
  await assert.rejects(drain({ ...request(prompt(8), { maxTokens: 1 }), routing: { dp_rank: 3 } }), /dp_rank 3 is out of bounds for dp_size 3/);
  for (const c of cores) c.close();
});
