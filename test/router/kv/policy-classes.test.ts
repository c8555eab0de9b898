// Policy-class queues: which class a request lands in, each class's own busy line and limits, and
// the classes' shares of the releases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverloadedError, type EngineClient, type LLMEngineOutput, type PreprocessedRequest } from '../../../src/protocols/index.js';
import { KvRouterPolicy, PushRouter, type PolicyClassSpec, type PolicyProfile } from '../../../src/router/index.js';
import { classIndex, PolicyClassQueues, singleClassProfile } from '../../../src/router/kv/index.js';

function cls(name: string, over: Partial<PolicyClassSpec> = {}): PolicyClassSpec {
  return {
    name,
    queuePolicy: 'fcfs',
    quantum: 1,
    prefillBusyThreshold: null,
    prefillBusyThresholdFrac: null,
    requestQueueLimitPerWorker: null,
    rawIslTokenQueueLimitPerWorker: null,
    cachedTokenQueueLimitPerWorker: null,
    ...over,
  };
}

/** Family `standard` in buckets short (from 0) and long (from 100 uncached tokens), and an explicit class `batch`. */
const PROFILE: PolicyProfile = {
  classes: [cls('standard_short'), cls('standard_long', { prefillBusyThreshold: 0 }), cls('batch', { prefillBusyThreshold: 0, requestQueueLimitPerWorker: 1 })],
  matrix: {
    defaultFamily: 'standard',
    buckets: [
      { name: 'short', minTokens: 0 },
      { name: 'long', minTokens: 100 },
    ],
    classes: { standard: { short: 0, long: 1 } },
    explicit: { batch: 2 },
  },
};

test('a request is classed by the explicit class it names, else its family (or the default) at its uncached-prompt bucket', () => {
  assert.equal(classIndex(PROFILE, undefined, 99), 0);
  assert.equal(classIndex(PROFILE, undefined, 100), 1);
  assert.equal(classIndex(PROFILE, 'standard', 5000), 1);
  assert.equal(classIndex(PROFILE, 'batch', 5), 2);
  assert.equal(classIndex(PROFILE, 'no-such-family', 5), 0, 'an unknown name is the default family');
  assert.equal(classIndex(PROFILE, 'standard_long', 5), 0, 'a matrix class cannot be named to skip bucketing');
  assert.equal(classIndex(singleClassProfile(2, 'wspt'), 'batch', 1e6), 0);
});

/** A kv router over one worker whose streams wait for `release()`; each dispatch pushes a gate. */
function cluster(profile: PolicyProfile) {
  const gates: (() => void)[] = [];
  const engine: EngineClient = {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      await new Promise<void>((r) => gates.push(r));
      yield { token_ids: [1], finish_reason: 'length' };
    },
  };
  const policy = new KvRouterPolicy({ blockSize: 4, policyProfile: profile });
  const router = new PushRouter('m', policy);
  router.setInstances([{ id: 1n, client: engine, capacity: () => ({ kvUsedBlocks: 0, kvTotalBlocks: 100, maxNumBatchedTokens: 64 }) }]);
  const send = (tokens: number, policyClass?: string) => {
    const request: PreprocessedRequest = {
      model: 'm',
      token_ids: Array.from({ length: tokens }, (_, i) => i * 7 + tokens),
      stop_conditions: {},
      sampling_options: {},
      output_options: {},
      eos_token_ids: [],
      routing: policyClass ? { policy_class: policyClass } : null,
    };
    return router.generate(request, { requestId: `r${tokens}-${policyClass}`, signal: new AbortController().signal });
  };
  return { policy, gates, send };
}

const tick = () => new Promise((r) => setImmediate(r));

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<void> {
  for await (const _ of stream);
}

test('each class has its own busy line: a long prompt waits while the worker is busy, a short one goes at once', async () => {
  const { policy, gates, send } = cluster(PROFILE);
  const first = drain(send(8));
  await tick();
  assert.equal(policy.sequences.activePrefillTokens(1n), 8, 'the worker has prefill work in flight');
  const long = drain(send(120));
  const short = drain(send(12));
  await tick();
  assert.deepEqual(policy.queue.sizes(), { standard_short: 0, standard_long: 1, batch: 0 });
  assert.equal(gates.length, 2, 'the short request was dispatched');
  gates.shift()!();
  gates.shift()!();
  await Promise.all([first, short]);
  await tick();
  assert.equal(policy.queue.size, 0, 'released as the load freed');
  gates.shift()!();
  await long;
});

test('a class whose queue is full refuses the next request with 529, naming the class', async () => {
  const { policy, gates, send } = cluster(PROFILE);
  const first = drain(send(8));
  await tick();
  const queued = drain(send(4, 'batch'));
  await tick();
  assert.equal(policy.queue.sizes().batch, 1);
  assert.throws(() => send(4, 'batch'), (err: unknown) => err instanceof OverloadedError && /Policy class batch queue is full: 1 queued requests/.test(err.message));
  while (gates.length > 0 || policy.queue.size > 0) {
    gates.shift()?.();
    await tick();
  }
  await Promise.all([first, queued]);
});

test('the classes release in turn, each up to its quantum per round', async () => {
  const queues = new PolicyClassQueues({ classes: [cls('a', { prefillBusyThreshold: 0, quantum: 2 }), cls('b', { prefillBusyThreshold: 0 })], matrix: null });
  const busy = true;
  let allBusy = busy;
  const order: string[] = [];
  const arrival = { priorityJump: 0, rawTokens: 10, cachedTokens: 0, workers: 1, signal: new AbortController().signal };
  const waits = [
    ...['a1', 'a2', 'a3', 'a4'].map((id) => queues.admit(0, arrival, () => allBusy)!.then(() => order.push(id))),
    ...['b1', 'b2', 'b3'].map((id) => queues.admit(1, arrival, () => allBusy)!.then(() => order.push(id))),
  ];
  assert.equal(queues.size, 7);
  allBusy = false;
  for (let i = 0; i < 7; i++) {
    queues.releaseOne(() => allBusy);
    await tick();
  }
  await Promise.all(waits);
  assert.deepEqual(order, ['a1', 'a2', 'b1', 'a3', 'a4', 'b2', 'b3']);
});
