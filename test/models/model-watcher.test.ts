// The frontend's model watcher in one process: mem discovery, in-process request plane.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cardFromCardJson, loadDefaultModelCard, toCardJson } from '../../src/models/index.js';
import type { EngineClient, LLMEngineOutput } from '../../src/protocols/index.js';
import { DistributedRuntime, engineHandler, loadMetricsPublisher, namespaceScope } from '../../src/runtime/index.js';
import { eventually } from '../support/in-process.js';
import { IN_PROCESS_RUNTIME, startWatchingFrontend } from '../support/in-process-runtime.js';

const OPTIONS = IN_PROCESS_RUNTIME;

const echo: EngineClient = {
  async *generate(req): AsyncGenerator<LLMEngineOutput> {
    yield { token_ids: req.token_ids.slice(0, 1), finish_reason: 'length' };
  },
};

test('a published card_json rebuilds the same card on the frontend side', () => {
  const card = loadDefaultModelCard({ kvCacheBlockSize: 32 });
  const back = cardFromCardJson(toCardJson(card));
  assert.equal(back.displayName, card.displayName);
  assert.equal(back.kvCacheBlockSize, 32);
  assert.equal(back.contextLength, card.contextLength);
  assert.equal(back.tokenizerJsonPath, card.tokenizerJsonPath);
  assert.deepEqual(back.chatTemplates, card.chatTemplates);
  assert.deepEqual(back.modelType, card.modelType);
  assert.equal(cardFromCardJson(toCardJson(card), 'renamed').displayName, 'renamed');
  assert.throws(() => cardFromCardJson({ display_name: 'x', tokenizer: null }), /names no hf_tokenizer_json/);
});

test('models appear with their first worker, leave with their last; scope filters namespaces', async () => {
  const ns = `mw-${Date.now()}`;
  const { frontend, models, watcher } = await startWatchingFrontend(namespaceScope({ namespacePrefix: ns }));
  const card = toCardJson(loadDefaultModelCard());
  const worker = async (namespace: string, name: string): Promise<DistributedRuntime> => {
    const rt = await DistributedRuntime.create(OPTIONS);
    const ep = rt.namespace(namespace).component('backend').endpoint('generate');
    await ep.serveEndpoint(engineHandler(echo));
    await ep.registerModel({ ...card, display_name: name }, { modelType: ['Chat', 'Completions'], modelInput: 'Tokens' });
    return rt;
  };
  const a1 = await worker(ns, 'model-a');
  const a2 = await worker(`${ns}-x`, 'model-a');
  const b = await worker(ns, 'model-b');
  const outside = await worker(`${ns}2`, 'model-c');
  try {
    await eventually(() => models.listReady().length === 2, 30_000, 'two models');
    assert.deepEqual(models.listReady().map((m) => m.name).sort(), ['model-a', 'model-b']);
    assert.equal(models.get('model-a').router.instanceIds.length, 2);
    const out: LLMEngineOutput[] = [];
    const request = { model: 'model-b', token_ids: [42, 43], stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] };
    for await (const o of models.get('model-b').router.generate(request, { requestId: 'r', signal: new AbortController().signal })) out.push(o);
    assert.deepEqual(out, [{ token_ids: [42], finish_reason: 'length' }]);

    await a1.shutdown();
    await eventually(() => models.get('model-a').router.instanceIds.length === 1, 5000, 'one instance left');
    await a2.shutdown();
    await eventually(() => !models.has('model-a'), 5000, 'model-a removed with its last worker');
    assert.ok(models.has('model-b'));
  } finally {
    watcher.stop();
    for (const rt of [b, outside, frontend]) await rt.shutdown();
  }
});

test('workers\' load reports and their cards\' runtime_config drive busy detection', async () => {
  const ns = `mw-load-${Date.now()}`;
  const { frontend, models, watcher } = await startWatchingFrontend(namespaceScope({ namespace: ns }));
  const worker = await DistributedRuntime.create(OPTIONS);
  try {
    const card = toCardJson(loadDefaultModelCard());
    const ep = worker.namespace(ns).component('backend').endpoint('generate');
    await ep.serveEndpoint(engineHandler(echo));
    await ep.registerModel(
      { ...card, display_name: 'loaded', runtime_config: { ...(card.runtime_config as object), total_kv_blocks: 100, max_num_batched_tokens: 512 } },
      { modelType: ['Chat', 'Completions'], modelInput: 'Tokens' },
    );
    await eventually(() => models.has('loaded') && models.get('loaded').router.instanceIds.length === 1, 30_000, 'the model');
    const router = models.get('loaded').router;
    router.busyThresholds = { activeDecodeBlocksThreshold: 0.5, activePrefillTokensThreshold: null, activePrefillTokensThresholdFrac: null };
    const request = { model: 'loaded', token_ids: [42], stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] };
    const ctx = { requestId: 'r', signal: new AbortController().signal };
    const report = loadMetricsPublisher(worker.events, ns, worker.instanceId);

    report({ dp_rank: 0, kv_used_blocks: 60 });
    assert.throws(() => router.generate(request, ctx), /all 1 workers of model loaded are busy \(KV block usage 0\.600 > active_decode_blocks_threshold 0\.5\)/);
    report({ dp_rank: 0, kv_used_blocks: 10 });
    const out: LLMEngineOutput[] = [];
    for await (const o of router.generate(request, ctx)) out.push(o);
    assert.equal(out.length, 1);
  } finally {
    watcher.stop();
    await worker.shutdown();
    await frontend.shutdown();
  }
});
