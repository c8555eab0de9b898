// Conditional disaggregation: the policies' verdicts on their facts, and the prefill hop acting on
// them (a local prefill goes to the previewed decode worker, marked; every decision is counted and
// logged with its request id).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BYPASS_REMOTE_PREFILL, OverloadedError, type GenerateContext, type LLMEngineOutput, type PreprocessedRequest } from '../../src/protocols/index.js';
import {
  decidePrefill,
  Disaggregation,
  LoadTracker,
  type ConditionalDisaggSettings,
  type PrefillFacts,
  type PrefillPool,
  type WorkerPreview,
} from '../../src/router/index.js';

const ISL: ConditionalDisaggSettings = { policy: 'isl_bounding', effIslThreshold: 2048, effIslRatioThreshold: 0.7, prefillBusyThreshold: null, decodeBusyThreshold: null };
const facts = (promptTokens: number, decodeCachedTokens: number, more: Partial<PrefillFacts> = {}): PrefillFacts => ({
  promptTokens,
  decodeCachedTokens,
  prefillBusy: null,
  decodeBusy: null,
  ...more,
});

test('isl_bounding: local only when the uncached prompt is under both thresholds (strictly)', () => {
  assert.deepEqual(decidePrefill(ISL, facts(3000, 2400)), { decision: 'local', reason: 'short_or_cached' }, '600 uncached, 20%');
  assert.deepEqual(decidePrefill(ISL, facts(150, 0)), { decision: 'remote', reason: 'cached_share_too_small' }, 'a short first turn is all uncached');
  assert.deepEqual(decidePrefill({ ...ISL, effIslRatioThreshold: 0.99 }, facts(90_000, 64_000)), { decision: 'remote', reason: 'uncached_prompt_too_long' });
  assert.deepEqual(decidePrefill({ ...ISL, effIslRatioThreshold: 1 }, facts(2048, 0)), { decision: 'remote', reason: 'uncached_prompt_too_long' }, '2048 is not under 2048');
  assert.deepEqual(decidePrefill(ISL, facts(1000, 300)), { decision: 'remote', reason: 'cached_share_too_small' }, '70% uncached is not under 0.7');
  assert.deepEqual(decidePrefill(ISL, facts(500, 900)), { decision: 'local', reason: 'short_or_cached' }, 'a cache larger than the prompt leaves nothing to compute');
  assert.deepEqual(decidePrefill(ISL, facts(0, 0)), { decision: 'local', reason: 'short_or_cached' });
});

test('prefill_load and isl_or_load read the prefill pool; a busy decode worker takes no local prefill', () => {
  const load = { ...ISL, policy: 'prefill_load' as const, prefillBusyThreshold: 1 };
  assert.deepEqual(decidePrefill(load, facts(5000, 0, { prefillBusy: true })), { decision: 'local', reason: 'prefill_busy' });
  assert.deepEqual(decidePrefill(load, facts(10, 10, { prefillBusy: false })), { decision: 'remote', reason: 'prefill_not_busy' });
  const either = { ...load, policy: 'isl_or_load' as const };
  assert.deepEqual(decidePrefill(either, facts(5000, 0, { prefillBusy: true })), { decision: 'local', reason: 'prefill_busy' });
  assert.deepEqual(decidePrefill(either, facts(3000, 2400, { prefillBusy: false })), { decision: 'local', reason: 'short_or_cached' });
  assert.deepEqual(decidePrefill(either, facts(5000, 0, { prefillBusy: false })), { decision: 'remote', reason: 'uncached_prompt_too_long' });
  assert.deepEqual(decidePrefill(either, facts(5000, 0, { prefillBusy: true, decodeBusy: true })), { decision: 'remote', reason: 'decode_busy' });
});

const REQUEST: PreprocessedRequest = {
  model: 'm',
  token_ids: Array.from({ length: 100 }, (_, i) => i),
  stop_conditions: { max_tokens: 5 },
  sampling_options: {},
  output_options: {},
  eos_token_ids: [],
  annotations: ['request_id'],
};

const decodeWorker = (cachedTokens: number, over: Partial<WorkerPreview> = {}): WorkerPreview => ({
  instance: { id: 42n, client: null, capacity: () => ({ kvUsedBlocks: 0, kvTotalBlocks: 100 }) },
  dpRank: undefined,
  cachedTokens,
  activePrefillTokens: 0,
  projectedBlocks: 10,
  ...over,
});

function pool(prefilled: PreprocessedRequest[], preview: PrefillPool['preview'] = () => null): PrefillPool {
  return {
    instances: [{ id: 9n, client: null }],
    load: new LoadTracker(),
    preview,
    async *generate(request) {
      prefilled.push(request);
      yield { token_ids: [1], finish_reason: 'length', disaggregated_params: 'dummy' };
    },
  };
}

async function run(d: Disaggregation, request: PreprocessedRequest, requestId: string): Promise<PreprocessedRequest> {
  let decoded: PreprocessedRequest | null = null;
  const ctx: GenerateContext = { requestId, signal: new AbortController().signal };
  for await (const _ of d.generate(request, ctx, async function* (r): AsyncGenerator<LLMEngineOutput> {
    decoded = r;
    yield { token_ids: [7], finish_reason: 'length' };
  }));
  return decoded!;
}

test('the prefill hop: a mostly cached prompt prefills on the previewed decode worker, marked; the others remotely; each decision counted and logged', async () => {
  const logs: object[] = [];
  const logger = { debug: (obj: object) => logs.push(obj) };
  let cached = 90;
  const d = new Disaggregation('m', false, { settings: ISL, previewDecode: () => decodeWorker(cached) }, logger);
  const prefilled: PreprocessedRequest[] = [];
  d.setPools(pool(prefilled), true);

  const local = await run(d, REQUEST, 'req-local');
  assert.equal(prefilled.length, 0, 'no remote prefill');
  assert.deepEqual(local.annotations, ['request_id', BYPASS_REMOTE_PREFILL]);
  assert.equal(local.routing!.backend_instance_id, '42', 'pinned to the worker the decision looked at');
  assert.equal(local.prefill_result, undefined);
  assert.deepEqual(REQUEST.annotations, ['request_id'], "the caller's request is untouched");

  cached = 0;
  const remote = await run(d, REQUEST, 'req-remote');
  assert.equal(prefilled.length, 1);
  assert.equal(remote.prefill_result!.disaggregated_params, 'dummy');
  assert.ok(!remote.annotations?.includes(BYPASS_REMOTE_PREFILL));
  await run(d, { ...REQUEST, routing: { prefill_worker_id: '9' } }, 'req-pinned');
  const marked = await run(d, { ...REQUEST, annotations: [BYPASS_REMOTE_PREFILL] }, 'req-marked');
  assert.deepEqual(marked.annotations, [], "a client's own bypass mark is dropped: the router decides");
  assert.equal(prefilled.length, 3, 'the pinned and the marked request were prefilled remotely');

  assert.deepEqual(
    d.prefillDecisions().map((c) => [c.decision, c.reason, c.count]),
    [
      ['local', 'short_or_cached', 1],
      ['remote', 'cached_share_too_small', 2],
      ['remote', 'prefill_pinned', 1],
    ],
  );
  assert.deepEqual(logs[0], { request_id: 'req-local', model: 'm', prefill: 'local', reason: 'short_or_cached', decode_worker_id: '42', decode_cached_tokens: 90 });
  assert.deepEqual(logs.map((l) => (l as { request_id: string }).request_id), ['req-local', 'req-remote', 'req-pinned', 'req-marked']);
});

test('the prefill hop: a busy prefill pool (its busy line or the busy gate) sends the prefill to the decode worker; the decode guard overrules', async () => {
  const settings: ConditionalDisaggSettings = { ...ISL, policy: 'prefill_load', prefillBusyThreshold: 0.5, decodeBusyThreshold: 0.8 };
  const prefillWorker = (active: number): WorkerPreview => ({ ...decodeWorker(0), instance: { id: 9n, client: null, capacity: () => ({ kvUsedBlocks: 0, kvTotalBlocks: 10, maxNumBatchedTokens: 100 }) }, activePrefillTokens: active });
  let prefillPreview: PrefillPool['preview'] = () => prefillWorker(51);
  let decodeBlocks = 10;
  const d = new Disaggregation('m', false, { settings, previewDecode: () => decodeWorker(0, { projectedBlocks: decodeBlocks }) });
  const prefilled: PreprocessedRequest[] = [];
  d.setPools(pool(prefilled, (r) => prefillPreview!(r)), true);
  assert.ok((await run(d, REQUEST, 'a')).annotations!.includes(BYPASS_REMOTE_PREFILL), '51 > 0.5 × 100 tokens');
  prefillPreview = () => prefillWorker(50);
  assert.equal((await run(d, REQUEST, 'b')).prefill_result!.disaggregated_params, 'dummy');
  prefillPreview = () => {
    throw new OverloadedError();
  };
  assert.ok((await run(d, REQUEST, 'c')).annotations!.includes(BYPASS_REMOTE_PREFILL));
  decodeBlocks = 81;
  assert.equal((await run(d, REQUEST, 'd')).prefill_result!.disaggregated_params, 'dummy', '81 of 100 blocks is over the 0.8 decode line');
  assert.deepEqual(
    d.prefillDecisions().map((c) => [c.decision, c.reason, c.count]),
    [
      ['local', 'prefill_busy', 2],
      ['remote', 'prefill_not_busy', 1],
      ['remote', 'decode_busy', 1],
    ],
  );
});

test('without conditional disaggregation every prefill is remote; decode workers serving without prefill workers count as skipped', async () => {
  const d = new Disaggregation('m', true);
  const prefilled: PreprocessedRequest[] = [];
  d.setPools(null, true);
  await run(d, REQUEST, 'a');
  d.setPools(pool(prefilled), true);
  await run(d, REQUEST, 'b');
  assert.deepEqual(
    d.prefillDecisions().map((c) => [c.decision, c.reason, c.count]),
    [
      ['skipped', 'no_prefill_workers', 1],
      ['remote', 'conditional_disagg_off', 1],
    ],
  );
  const aggregated = new Disaggregation('m', false);
  await run(aggregated, REQUEST, 'c');
  assert.deepEqual(aggregated.prefillDecisions(), [], 'an aggregated model makes no prefill decisions');
});
