// `--engine-type vllm|sglang|trtllm` (reference/disagg-router.md §4): block sizes, batching and
// admission of each engine, and the one KV event format they all publish.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENGINE_TYPES, resolveMockerOptions } from '../../../src/engines/mocker/index.js';
import { Scheduler } from '../../../src/engines/mocker/scheduler.js';
import { createSequence } from '../../../src/engines/mocker/sequence.js';
import type { KvCacheEvent } from '../../../src/protocols/index.js';
import { KvRouterPolicy } from '../../../src/router/index.js';
import { postJson, serveInjected } from '../../support/in-process.js';
import { collect, fastEngine, prompt, request, vocab } from './helpers.js';

const MODEL = 'Qwen/Qwen3-0.6B';

test('each engine type has its default block size; an explicit one wins', () => {
  assert.equal(resolveMockerOptions({}).blockSize, 64);
  assert.equal(resolveMockerOptions({ engineType: 'sglang' }).blockSize, 1);
  assert.equal(resolveMockerOptions({ engineType: 'trtllm' }).blockSize, 32);
  assert.equal(resolveMockerOptions({ engineType: 'sglang', blockSize: 16 }).blockSize, 16);
  assert.throws(() => resolveMockerOptions({ engineType: 'tgi' as never }), /engineType=tgi is invalid: must be one of vllm, sglang, trtllm/);
});

test('sglang prefills at most 16384 prompt tokens a step, 8192 of one request; vllm fills the token budget', () => {
  const prompts = [prompt(12000, 1), prompt(12000, 2)];
  const firstStep = (engineType: 'vllm' | 'sglang') => {
    const opts = resolveMockerOptions({ engineType, blockSize: 16, numGpuBlocks: 4000, maxNumBatchedTokens: 32768 });
    const scheduler = new Scheduler(opts, null);
    for (const [i, tokens] of prompts.entries()) scheduler.enqueue(createSequence(request(tokens, { maxTokens: 2 }), `r${i}`, opts, vocab));
    return scheduler.schedule().work.map((w) => w.tokens);
  };
  assert.deepEqual(firstStep('sglang'), [8192, 8192]);
  assert.deepEqual(firstStep('vllm'), [12000, 12000]);
});

test('trtllm admits only what fits with its whole answer, and never preempts; vllm admits on the prompt and preempts', () => {
  const run = (engineType: 'vllm' | 'trtllm') => {
    const opts = resolveMockerOptions({ engineType, blockSize: 16, numGpuBlocks: 40, watermark: 0, enablePrefixCaching: false });
    const scheduler = new Scheduler(opts, null);
    // Each: 160 prompt tokens (10 blocks) and up to 320 answer tokens (20 more).
    for (let i = 0; i < 3; i++) scheduler.enqueue(createSequence(request(prompt(160, i), { maxTokens: 320, ignoreEos: true }), `r${i}`, opts, vocab));
    const admitted = scheduler.schedule().work.length;
    let steps = 0;
    while (scheduler.hasWork && steps++ < 5000) scheduler.complete(scheduler.schedule());
    return { admitted, preemptions: scheduler.numPreemptions, finished: scheduler.numFinished };
  };
  assert.deepEqual(run('trtllm'), { admitted: 1, preemptions: 0, finished: 3 });
  const vllm = run('vllm');
  assert.equal(vllm.admitted, 3);
  assert.ok(vllm.preemptions > 0);
  assert.equal(vllm.finished, 3);
});

test('every engine type publishes Dynamo KV events the kv router consumes', async () => {
  for (const engineType of Object.keys(ENGINE_TYPES) as (keyof typeof ENGINE_TYPES)[]) {
    const events: KvCacheEvent[] = [];
    const engine = fastEngine({ engineType, onKvEvent: (e) => events.push(e) });
    const blockSize = engine.options.blockSize;
    const tokens = prompt(blockSize * 4, 7);
    await collect(engine, request(tokens, { maxTokens: 1 }));
    engine.close();
    const policy = new KvRouterPolicy({ blockSize });
    for (const e of events) policy.applyKvEvent(1n, e);
    assert.equal(policy.indexer.treeSize(1n), 4, `${engineType}: the router indexed the prompt's full blocks`);
  }
});

test('serve --engine-type sglang: the card says page size 1 and the kv router follows the prefix at that size', async () => {
  const { service, baseUrl } = await serveInjected(['--engine-type', 'sglang', '--num-workers', '2', '--router-mode', 'kv', '--speedup-ratio', '100']);
  try {
    const served = service.models.get(MODEL);
    assert.equal(served.card.kvCacheBlockSize, 1);
    const policy = served.router.policy;
    assert.ok(policy instanceof KvRouterPolicy);
    const system = 'Harbour pilots guide ships through narrow channels at dawn. '.repeat(8);
    const chosen: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: `${system}Q${i}`, max_tokens: 2 });
      assert.equal(res.status, 200);
      await res.json();
      chosen.push(policy.lastDecision!.workerId);
      if (i > 0) assert.ok(policy.lastDecision!.overlapBlocks >= 60, `overlap ${policy.lastDecision!.overlapBlocks}`);
    }
    assert.equal(new Set(chosen).size, 1);
  } finally {
    await service.stop();
  }
});
