// Approximate mode's LRU policy: a worker's predicted blocks are bounded by the KV blocks it
// advertises, the least recently routed going first, never those of requests still in flight.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeLocalBlockHashes, type EngineClient, type LLMEngineOutput, type PreprocessedRequest } from '../../../src/protocols/index.js';
import { KvRouterPolicy, PushRouter } from '../../../src/router/index.js';

const request = (tokens: number[]): PreprocessedRequest => ({ model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] });
const ctx = (id: string) => ({ requestId: id, signal: new AbortController().signal });
const prompt = (base: number) => Array.from({ length: 8 }, (_, i) => base + i);

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<void> {
  for await (const _ of stream);
}

function cluster(policy: KvRouterPolicy, gates?: (() => void)[]) {
  const engine: EngineClient = {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      if (gates) await new Promise<void>((r) => gates.push(r));
      yield { token_ids: [1], finish_reason: 'length' };
    },
  };
  const router = new PushRouter('m', policy);
  // Room for 4 blocks of 4 tokens: two of these 2-block prompts.
  router.setInstances([{ id: 1n, client: engine, capacity: () => ({ kvUsedBlocks: 0, kvTotalBlocks: 4 }) }]);
  return router;
}

const cached = (policy: KvRouterPolicy, base: number) => policy.indexer.findMatches(computeLocalBlockHashes(prompt(base), 4)).map((m) => m.blocks);

test('lru: past the advertised capacity the least recently routed prompt is forgotten; ttl keeps all until they expire', async () => {
  const lru = new KvRouterPolicy({ blockSize: 4, useKvEvents: false, approximateCachePolicy: 'lru' });
  const ttl = new KvRouterPolicy({ blockSize: 4, useKvEvents: false });
  for (const policy of [lru, ttl]) {
    const router = cluster(policy);
    for (const base of [100, 200, 100, 300]) await drain(router.generate(request(prompt(base)), ctx(`r${base}`)));
    router.pick(request(prompt(900)));
  }
  assert.deepEqual(cached(lru, 100), [2], 'routed again, so recent');
  assert.deepEqual(cached(lru, 200), [], 'the least recent went');
  assert.deepEqual(cached(lru, 300), [2]);
  assert.deepEqual([cached(ttl, 100), cached(ttl, 200), cached(ttl, 300)], [[2], [2], [2]]);
});

test('lru: the blocks of a request in flight stay, even over capacity', async () => {
  const gates: (() => void)[] = [];
  const policy = new KvRouterPolicy({ blockSize: 4, useKvEvents: false, approximateCachePolicy: 'lru' });
  const router = cluster(policy, gates);
  const running = [100, 200, 300].map((base) => drain(router.generate(request(prompt(base)), ctx(`r${base}`))));
  await new Promise((r) => setImmediate(r));
  router.pick(request(prompt(900)));
  assert.deepEqual([cached(policy, 100), cached(policy, 200), cached(policy, 300)], [[2], [2], [2]], 'all three are held');
  for (const open of gates.splice(0)) open();
  await Promise.all(running);
  router.pick(request(prompt(900)));
  assert.deepEqual(cached(policy, 100), [], 'released: now the oldest goes');
  assert.deepEqual(cached(policy, 300), [2]);
});
