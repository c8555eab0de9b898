import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MockerEngine } from '../../../src/engines/mocker/index.js';
import type { KvCacheEvent } from '../../../src/protocols/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/router/kv/index.js';
import { collect, fastEngine, ids, prompt, request, vocab } from './helpers.js';

async function settle(engine: MockerEngine): Promise<void> {
  for (let i = 0; i < 10 && engine.activeRequestCount > 0; i++) await new Promise((r) => setImmediate(r));
}

test('abort signal ends the stream and frees the request', async () => {
  const engine = new MockerEngine({ vocab, speedupRatio: 1 });
  const ac = new AbortController();
  let seen = 0;
  for await (const out of engine.generate(request(prompt(100), { maxTokens: 1000, ignoreEos: true }), {
    requestId: 'a',
    signal: ac.signal,
  })) {
    assert.equal(out.finish_reason ?? null, null);
    if (++seen === 2) ac.abort();
  }
  assert.equal(seen, 2);
  assert.equal(engine.activeRequestCount, 0);
  assert.equal(engine.stats().kvActiveBlocks, 0);
  engine.close();
});

test('breaking out of the loop frees the request', async () => {
  const engine = new MockerEngine({ vocab, speedupRatio: 1 });
  for await (const out of engine.generate(request(prompt(100), { maxTokens: 1000, ignoreEos: true }), {
    requestId: 'b',
    signal: new AbortController().signal,
  })) {
    assert.ok(out.token_ids.length === 1);
    break;
  }
  assert.equal(engine.activeRequestCount, 0);
  assert.equal(engine.stats().kvActiveBlocks, 0);
  engine.close();
});

test('abort before the first token, and an already-aborted signal, leave nothing behind', async () => {
  const engine = new MockerEngine({ vocab, speedupRatio: 1 });
  const ac = new AbortController();
  const it = engine.generate(request(prompt(100), { maxTokens: 50 }), { requestId: 'c', signal: ac.signal });
  const pending = it[Symbol.asyncIterator]().next();
  ac.abort();
  assert.equal((await pending).done, true);
  await settle(engine);
  assert.equal(engine.activeRequestCount, 0);
  const aborted = AbortSignal.abort();
  assert.deepEqual(await collect(engine, request(prompt(10), { maxTokens: 5 }), aborted), []);
  engine.close();
});

test('close() ends open streams and rejects new requests', async () => {
  const engine = new MockerEngine({ vocab, speedupRatio: 1 });
  const run = collect(engine, request(prompt(10), { maxTokens: 1000, ignoreEos: true }));
  await new Promise((r) => setTimeout(r, 30));
  engine.close();
  const outs = await run;
  assert.ok(outs.length < 1000);
  assert.equal(engine.activeRequestCount, 0);
  await assert.rejects(collect(engine, request(prompt(10))), /closed/);
});

test('prefix caching: repeat prompt hits the cache and stores no duplicate blocks', async () => {
  const events: KvCacheEvent[] = [];
  const engine = fastEngine({ onKvEvent: (e) => events.push(e), dpRank: 2 });
  const p = prompt(300);
  const first = await collect(engine, request(p, { seed: 1, maxTokens: 20 }));
  assert.equal(first.at(-1)!.completion_usage!.prompt_tokens_details!.cached_tokens, 0);

  const local = computeLocalBlockHashes(p, 64);
  const seq = computeSequenceHashes(local);
  const firstStored = events.find((e) => typeof e.data === 'object' && 'stored' in e.data)!;
  assert.ok(typeof firstStored.data === 'object' && 'stored' in firstStored.data);
  assert.equal(firstStored.data.stored.parent_hash, null);
  assert.deepEqual(
    firstStored.data.stored.blocks.map((b) => [b.block_hash, b.tokens_hash]),
    seq.map((h, i) => [h, local[i]]),
  );

  const storedBefore = events.length;
  const second = await collect(engine, request(p, { seed: 1, maxTokens: 20 }));
  assert.equal(second.at(-1)!.completion_usage!.prompt_tokens_details!.cached_tokens, 256);
  assert.deepEqual(ids(second), ids(first));
  assert.equal(events.length, storedBefore, 'identical blocks must not be stored again');

  const stored = events.flatMap((e) => (typeof e.data === 'object' && 'stored' in e.data ? e.data.stored.blocks : []));
  assert.equal(new Set(stored.map((b) => b.block_hash)).size, stored.length);
  events.forEach((e, i) => {
    assert.equal(e.event_id, i);
    assert.equal(e.dp_rank, 2);
  });
  assert.ok(engine.stats().gpuPrefixCacheHitRate > 0);
  engine.close();
});

test('generated tokens fill blocks that are stored as chained full blocks', async () => {
  const events: KvCacheEvent[] = [];
  const engine = fastEngine({ onKvEvent: (e) => events.push(e), blockSize: 16 });
  const p = prompt(40);
  const outs = await collect(engine, request(p, { seed: 5, maxTokens: 60, ignoreEos: true }));
  const all = [...p, ...ids(outs)];
  // KV holds every token but the last sampled one.
  const local = computeLocalBlockHashes(all.slice(0, -1), 16);
  const seq = computeSequenceHashes(local);
  const stored = events.flatMap((e) => (typeof e.data === 'object' && 'stored' in e.data ? [e.data.stored] : []));
  const blocks = stored.flatMap((s) => s.blocks);
  assert.deepEqual(blocks.map((b) => b.block_hash), seq);
  assert.deepEqual(blocks.map((b) => b.tokens_hash), local);
  // Each event's parent is the block stored just before it.
  let prev: bigint | null = null;
  for (const s of stored) {
    assert.equal(s.parent_hash, prev);
    prev = s.blocks.at(-1)!.block_hash;
  }
  engine.close();
});

test('prefix caching disabled: no events and no cache hits', async () => {
  const events: KvCacheEvent[] = [];
  const engine = fastEngine({ onKvEvent: (e) => events.push(e), enablePrefixCaching: false });
  const p = prompt(300);
  await collect(engine, request(p, { maxTokens: 10 }));
  const again = await collect(engine, request(p, { maxTokens: 10 }));
  assert.equal(again.at(-1)!.completion_usage!.prompt_tokens_details!.cached_tokens, 0);
  assert.equal(events.length, 0);
  assert.equal(engine.stats().kvActiveBlocks, 0);
  engine.close();
});

test('preemption under scarce blocks still completes every request with its own tokens', async () => {
  const roomy = fastEngine({ blockSize: 16 });
  const tight = fastEngine({ blockSize: 16, numGpuBlocks: 40, watermark: 0 });
  const reqs = Array.from({ length: 8 }, (_, i) => request(prompt(64, i), { seed: i, maxTokens: 100, ignoreEos: true }));
  const expected = await Promise.all(reqs.map((r) => collect(roomy, r)));
  const got = await Promise.all(reqs.map((r) => collect(tight, r)));
  assert.ok(tight.stats().numPreemptions > 0, 'expected preemptions');
  got.forEach((outs, i) => {
    assert.equal(outs.length, 100);
    assert.equal(outs.at(-1)!.finish_reason, 'length');
    assert.deepEqual(ids(outs), ids(expected[i]!));
  });
  assert.equal(tight.activeRequestCount, 0);
  assert.equal(tight.stats().kvActiveBlocks, 0);
  roomy.close();
  tight.close();
});

test('chunked prefill: prompt longer than max_num_batched_tokens completes', async () => {
  const engine = fastEngine({ maxNumBatchedTokens: 256, maxNumSeqs: 16, blockSize: 16 });
  const outs = await collect(engine, request(prompt(1000), { maxTokens: 5 }));
  assert.equal(outs.length, 5);
  assert.equal(outs.at(-1)!.completion_usage!.prompt_tokens, 1000);
  engine.close();

  const unchunked = fastEngine({ maxNumBatchedTokens: 256, maxNumSeqs: 16, enableChunkedPrefill: false });
  await assert.rejects(collect(unchunked, request(prompt(1000), { maxTokens: 5 })), /max_num_batched_tokens/);
  unchunked.close();
});

test('max_num_seqs bounds the running batch', async () => {
  const engine = fastEngine({ maxNumSeqs: 2 });
  let maxRunning = 0;
  const runs = Array.from({ length: 6 }, (_, i) =>
    (async () => {
      for await (const _ of engine.generate(request(prompt(30, i), { maxTokens: 20 }), {
        requestId: `s${i}`,
        signal: new AbortController().signal,
      })) {
        maxRunning = Math.max(maxRunning, engine.stats().numRequestsRunning);
      }
    })(),
  );
  await Promise.all(runs);
  assert.equal(maxRunning, 2);
  engine.close();
});

test('many concurrent requests complete quickly at a huge speedup', async () => {
  const engine = fastEngine();
  const n = 300;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => collect(engine, request(prompt(50, i), { seed: i, maxTokens: 40, ignoreEos: true }))),
  );
  for (const outs of results) assert.equal(outs.length, 40);
  assert.equal(engine.activeRequestCount, 0);
  assert.equal(engine.stats().kvActiveBlocks, 0);
  engine.close();
});

test('invalid requests are rejected', async () => {
  const engine = fastEngine({ numGpuBlocks: 10, blockSize: 4 });
  await assert.rejects(collect(engine, request([])), /at least one token/);
  await assert.rejects(collect(engine, request(prompt(100))), /exceeds the KV cache/);
  await assert.rejects(collect(engine, request(prompt(4), { maxTokens: 0 })), /max_tokens/);
  await assert.rejects(collect(engine, request(prompt(4), { maxTokens: 3, minTokens: 5 })), /min_tokens/);
  engine.close();
});
