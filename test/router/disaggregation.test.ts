// The prefill hop on its own (reference/disagg-router.md §1.3, §1.6): request shapes, the prefill
// stream's outcomes, and the decode pool without prefill workers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeRequest, Disaggregation, LLM_RESUMABLE, LoadTracker, prefillRequest, type PrefillPool } from '../../src/router/index.js';
import { InternalError, ValidationError, WorkerLostError, type GenerateContext, type LLMEngineOutput, type PreprocessedRequest } from '../../src/protocols/index.js';

const REQUEST: PreprocessedRequest = {
  model: 'm',
  token_ids: [1, 2, 3],
  stop_conditions: { max_tokens: 20, min_tokens: 5 },
  sampling_options: { temperature: 0.5 },
  output_options: {},
  eos_token_ids: [],
  routing: { backend_instance_id: '7', prefill_worker_id: '2', decode_worker_id: null, dp_rank: 3, prefill_dp_rank: 4 },
};

const ctx = (): GenerateContext => ({ requestId: 'r', signal: new AbortController().signal });

function pool(outputs: LLMEngineOutput[] | Error, seen: PreprocessedRequest[] = []): PrefillPool {
  return {
    instances: [{ id: 9n, client: null }],
    load: new LoadTracker(),
    async *generate(request, c) {
      seen.push(request);
      c.dispatched?.({ instanceId: 9n, routerMode: 'kv', routingStartedAt: 0 });
      if (outputs instanceof Error) throw outputs;
      yield* outputs;
    },
  };
}

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<LLMEngineOutput[]> {
  const out: LLMEngineOutput[] = [];
  for await (const o of stream) out.push(o);
  return out;
}

test('the prefill request asks one token, pinned to the prefill worker and rank; the decode request carries the hand-over', () => {
  const p = prefillRequest(REQUEST);
  assert.deepEqual(p.stop_conditions, { max_tokens: 1, min_tokens: 1 });
  assert.equal(p.sampling_options.temperature, 0.5);
  assert.deepEqual(p.routing, { ...REQUEST.routing, backend_instance_id: '2', decode_worker_id: null, dp_rank: 4 });

  const handover: LLMEngineOutput = { token_ids: [5], disaggregated_params: { kv_transfer_params: { x: 1 } }, completion_usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } } };
  const d = decodeRequest(REQUEST, handover, 9n);
  assert.deepEqual(d.stop_conditions, REQUEST.stop_conditions);
  assert.deepEqual(d.prefill_result, { disaggregated_params: { kv_transfer_params: { x: 1 } }, prompt_tokens_details: { cached_tokens: 2 } });
  assert.equal(d.routing!.prefill_worker_id, '9');
  assert.equal(d.routing!.backend_instance_id, '7', 'decode pinned to the backend instance when no decode worker is named');
  assert.equal(d.routing!.dp_rank, 3);
  assert.equal(decodeRequest({ ...REQUEST, routing: { ...REQUEST.routing, decode_worker_id: '8' } }, handover, 9n).routing!.backend_instance_id, '8');
});

test('prefill then decode: the caller sees the decode stream; the decode request names the chosen prefill worker', async () => {
  const d = new Disaggregation('m', false);
  const prefilled: PreprocessedRequest[] = [];
  d.setPools(pool([{ token_ids: [5], finish_reason: 'length', disaggregated_params: 'dummy' }], prefilled), true);
  let decoded: PreprocessedRequest | null = null;
  const out = await drain(
    d.generate(REQUEST, ctx(), async function* (request) {
      decoded = request;
      yield { token_ids: [10] };
      yield { token_ids: [11], finish_reason: 'length' };
    }),
  );
  assert.deepEqual(out.map((o) => o.token_ids[0]), [10, 11]);
  assert.equal(prefilled[0]!.stop_conditions.max_tokens, 1);
  assert.equal(decoded!.prefill_result!.disaggregated_params, 'dummy');
  assert.equal(decoded!.routing!.prefill_worker_id, '9');
});

test('a first prefill output that stops (not length) is the whole answer, without its transfer parameters', async () => {
  const d = new Disaggregation('m', false);
  d.setPools(pool([{ token_ids: [5], finish_reason: 'eos', disaggregated_params: 'dummy' }]), true);
  const out = await drain(d.generate(REQUEST, ctx(), () => assert.fail('no decode')));
  assert.deepEqual(out, [{ token_ids: [5], finish_reason: 'eos' }]);
});

test('a prefill answer without transfer parameters, an empty one, or a failed prefill fails the request', async () => {
  const decode = () => assert.fail('never decoded');
  const d = new Disaggregation('m', false);
  d.setPools(pool([{ token_ids: [5], finish_reason: 'length' }]), true);
  await assert.rejects(drain(d.generate(REQUEST, ctx(), decode)), /No disaggregated params in prefill response/);
  d.setPools(pool([]), true);
  await assert.rejects(drain(d.generate(REQUEST, ctx(), decode)), /Prefill execution failed/);
  d.setPools(pool(new Error('worker exploded')), true);
  await assert.rejects(drain(d.generate(REQUEST, ctx(), decode)), (err: unknown) => {
    assert.ok(err instanceof InternalError);
    assert.equal(err.message, 'Prefill execution failed: worker exploded');
    return true;
  });
  // An error item fails it too, with the worker's reason.
  d.setPools(pool([{ token_ids: [], finish_reason: 'error', stop_reason: 'out of KV blocks' }]), true);
  await assert.rejects(drain(d.generate(REQUEST, ctx(), decode)), /^InternalError: Prefill execution failed: out of KV blocks$/);
  // A typed error keeps its kind; a lost prefill worker stays a lost worker for the routing layers.
  d.setPools(pool(new ValidationError('prompt too long')), true);
  await assert.rejects(drain(d.generate(REQUEST, ctx(), decode)), (err: unknown) => err instanceof ValidationError && err.message === 'Prefill execution failed: prompt too long');
  const lost = new WorkerLostError('worker lost: connection reset', 9n);
  d.setPools(pool(lost), true);
  await assert.rejects(drain(d.generate(REQUEST, ctx(), decode)), (err: unknown) => err === lost && lost.message === 'worker lost: connection reset');
});

test('no prefill worker: decode workers answer 503, or serve aggregated with --decode-fallback; aggregated workers always serve', async () => {
  const direct = async function* (): AsyncGenerator<LLMEngineOutput> {
    yield { token_ids: [1], finish_reason: 'length' };
  };
  const strict = new Disaggregation('m', false);
  strict.setPools({ instances: [], load: new LoadTracker(), generate: () => assert.fail('empty pool') }, true);
  assert.throws(() => strict.generate(REQUEST, ctx(), direct), (err: Error & { kind?: string }) => /decode workers but no prefill worker/.test(err.message));
  const fallback = new Disaggregation('m', true);
  fallback.setPools(null, true);
  assert.equal((await drain(fallback.generate(REQUEST, ctx(), direct))).length, 1);
  const aggregated = new Disaggregation('m', false);
  assert.equal((await drain(aggregated.generate(REQUEST, ctx(), direct))).length, 1);
});

test('a decode request re-sent by migration leaves the hand-over behind: the next decode worker prefills itself', () => {
  const decoded = decodeRequest(REQUEST, { token_ids: [5], disaggregated_params: 'dummy' }, 9n);
  const resent = LLM_RESUMABLE.resume(decoded, [10, 11]);
  assert.equal(resent.prefill_result, null);
  assert.deepEqual(resent.token_ids, [1, 2, 3, 10, 11]);
});
