// Predict-on-route (--router-predicted-ttl-secs): with KV events on, each decision also counts as
// cached on its worker for a TTL, so a repeat prefix follows its first request before the worker's
// events arrive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';
import { KvRouterPolicy, PushRouter } from '../../../src/router/index.js';

const request = (tokens: number[]): PreprocessedRequest => ({ model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] });
const ctx = (id: string) => ({ requestId: id, signal: new AbortController().signal });
/** Answers the first token, then keeps the request in flight. */
const slow: EngineClient = {
  async *generate(): AsyncGenerator<LLMEngineOutput> {
    yield { token_ids: [1] };
    await new Promise(() => undefined);
  },
};
const PROMPT = Array.from({ length: 16 }, (_, i) => 500 + i);

/** The first request routed and prefilled (its first token seen), still decoding. */
async function route(predictedTtlSecs: number | null, clock: { t: number }) {
  const policy = new KvRouterPolicy({ blockSize: 4, predictedTtlSecs, now: () => clock.t });
  const router = new PushRouter('m', policy);
  router.setInstances([1n, 2n].map((id) => ({ id, client: slow })));
  await router.generate(request(PROMPT), ctx('first'))[Symbol.asyncIterator]().next();
  const first = policy.lastDecision!;
  return { policy, router, first };
}

test('a repeat prompt follows the first to its worker while the prediction lives; without it nothing is known cached', async () => {
  const clock = { t: 0 };
  const on = await route(5, clock);
  const repeat = on.router.pick(request(PROMPT));
  assert.equal(repeat.id, on.first.workerId, 'predicted cached there');
  assert.equal(on.policy.lastDecision!.overlapBlocks, 4);

  const off = await route(null, { t: 0 });
  off.router.pick(request(PROMPT));
  assert.equal(off.policy.lastDecision!.overlapBlocks, 0, 'without it nothing is known cached before the events arrive');

  clock.t = 6000;
  on.router.pick(request(PROMPT));
  assert.equal(on.policy.lastDecision!.overlapBlocks, 0, 'the prediction expired');
});
