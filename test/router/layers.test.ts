// Each routing layer alone, then the composed chain through PushRouter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  NotFoundError,
  OverloadedError,
  UnavailableError,
  type EngineClient,
  type LLMEngineOutput,
  type PreprocessedRequest,
} from '../../src/protocols/index.js';
import {
  busyGate,
  composeLayers,
  createRouterPolicy,
  InstanceHealth,
  LLM_REQUESTS,
  LoadTracker,
  loadTracking,
  NO_BUSY_THRESHOLDS,
  pinning,
  policySelect,
  PushRouter,
  requireWorkers,
  routerQueue,
  sendToTarget,
  type BusyThresholds,
  type Decision,
  type Instance,
  type Route,
  type RouterPolicy,
  type StreamObserver,
} from '../../src/router/index.js';

type Llm = Instance<PreprocessedRequest, LLMEngineOutput>;

function request(routing: PreprocessedRequest['routing'] = null, tokens = [1, 2, 3]): PreprocessedRequest {
  return { model: 'm', token_ids: tokens, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing };
}

/** An engine that records who it served and yields `n` one-token outputs. */
function engine(served: string[], name: string, n = 2): EngineClient {
  return {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      served.push(name);
      for (let i = 0; i < n; i++) yield { token_ids: [i] };
    },
  };
}

const inst = (id: number, client: EngineClient = engine([], String(id)), kvUsed = 0): Llm => ({
  id: BigInt(id),
  client,
  capacity: () => ({ kvUsedBlocks: kvUsed, kvTotalBlocks: 100 }),
});
const ctx = (requestId = 'r') => ({ requestId, signal: new AbortController().signal });
const decision = (req: PreprocessedRequest, candidates: readonly Llm[] = []): Decision<PreprocessedRequest, LLMEngineOutput> => ({
  request: req,
  candidates,
  target: null,
});
const route = (req: PreprocessedRequest): Route<PreprocessedRequest, LLMEngineOutput> => ({ ...decision(req), ctx: ctx() });
const decodeOver = (threshold: number): BusyThresholds => ({ ...NO_BUSY_THRESHOLDS, activeDecodeBlocksThreshold: threshold });

async function drain(stream: AsyncIterable<LLMEngineOutput>): Promise<number> {
  let n = 0;
  for await (const _ of stream) n++;
  return n;
}

test('pinning: a pinned request gets its instance, an unknown id is a 404, a down one a 503, others are left to choose', () => {
  const instances = [inst(1), inst(2)];
  const health = new InstanceHealth();
  const step = pinning({ modelName: 'm', instances, requests: LLM_REQUESTS, health });
  const pinned = decision(request({ backend_instance_id: '2' }));
  step(pinned);
  assert.equal(pinned.target, instances[1]);
  const decode = decision(request({ decode_worker_id: 1 }));
  step(decode);
  assert.equal(decode.target, instances[0], 'decode_worker_id pins too');
  const free = decision(request());
  step(free);
  assert.equal(free.target, null);
  assert.throws(() => step(decision(request({ backend_instance_id: 9 }))), new NotFoundError('Worker instance 9 not found for model m'));
  assert.throws(() => step(decision(request({ backend_instance_id: 'x' }))), new NotFoundError('Worker instance x not found for model m'));
  health.markDown(7n, 'lost');
  assert.throws(() => step(decision(request({ backend_instance_id: 7 }))), new UnavailableError('Worker instance 7 of model m is down'));
});

test('require workers: no live instance is a 503 unless the target is already chosen', () => {
  const step = requireWorkers<PreprocessedRequest, LLMEngineOutput>({ modelName: 'm', instances: [] });
  assert.throws(() => step(decision(request())), (err: unknown) => err instanceof UnavailableError && err.httpStatus === 503 && /Model `m` is not ready/.test(err.message));
  const d = decision(request());
  d.target = inst(1);
  assert.doesNotThrow(() => step(d));
});

test('busy gate: the candidates are the instances under the thresholds; none left is a 529', () => {
  const router = { modelName: 'm', instances: [inst(1, undefined, 90), inst(2, undefined, 10)], busyThresholds: NO_BUSY_THRESHOLDS, load: new LoadTracker() };
  const step = busyGate(router);
  const all = decision(request());
  step(all);
  assert.equal(all.candidates, router.instances, 'no thresholds: every instance');
  router.busyThresholds = decodeOver(0.5);
  const some = decision(request());
  step(some);
  assert.deepEqual(some.candidates.map((i) => i.id), [2n]);
  router.busyThresholds = decodeOver(0.05);
  assert.throws(
    () => step(decision(request())),
    (err: unknown) => err instanceof OverloadedError && /^Service temporarily overloaded: all 2 workers of model m are busy \(KV block usage 0\.900 > active_decode_blocks_threshold 0\.05\)/.test(err.message),
  );
  const pinned = decision(request());
  pinned.target = router.instances[0]!;
  assert.doesNotThrow(() => step(pinned), 'a chosen target skips the gate');
});

test('policy select: the policy picks among the candidates, a chosen target stays', () => {
  const step = policySelect(createRouterPolicy('round-robin'));
  const candidates = [inst(1), inst(2)];
  const a = decision(request(), candidates);
  step(a);
  assert.equal(a.target, candidates[0]);
  const b = decision(request(), candidates);
  b.target = candidates[0]!;
  step(b);
  assert.equal(b.target, candidates[0]);
});

test('router queue: dispatch waits for admission, then the gates decide again', async () => {
  let release!: () => void;
  const admitted: (readonly unknown[])[] = [];
  const policy: RouterPolicy = {
    select: (instances) => instances[0]!,
    admission(instances) {
      admitted.push(instances);
      return new Promise<void>((r) => (release = r));
    },
  };
  const regated: string[] = [];
  const dispatched: string[] = [];
  const layer = routerQueue(policy, [() => regated.push('gate')]);
  const next = (r: Route<PreprocessedRequest, LLMEngineOutput>): AsyncIterable<LLMEngineOutput> => {
    dispatched.push(r.ctx.requestId);
    return (async function* () {})();
  };
  const r = route(request());
  r.candidates = [inst(1)];
  const stream = layer(next)(r);
  assert.deepEqual(admitted, [r.candidates], 'admission sees the candidates');
  const reading = drain(stream);
  await new Promise((res) => setImmediate(res));
  assert.deepEqual(dispatched, [], 'nothing dispatched while queued');
  release();
  await reading;
  assert.deepEqual(regated, ['gate']);
  assert.deepEqual(dispatched, ['r']);

  const pinned = route(request());
  pinned.target = inst(1);
  layer(next)(pinned);
  assert.equal(admitted.length, 1, 'a pinned request never queues');
  assert.deepEqual(dispatched, ['r', 'r'], 'and is dispatched at once');
  routerQueue<PreprocessedRequest, LLMEngineOutput>(createRouterPolicy('random'), [])(next)(route(request()));
  assert.equal(dispatched.length, 3, 'a policy without admission dispatches at once');
});

test('load tracking: counts from dispatch, prefill until the first output, ends once', async () => {
  const load = new LoadTracker();
  const events: string[] = [];
  const policy: RouterPolicy = {
    select: (instances) => instances[0]!,
    track: (): StreamObserver => ({ onOutput: () => events.push('output'), onEnd: () => events.push('end') }),
  };
  const layer = loadTracking({ load, policy, requests: LLM_REQUESTS });
  const r = route(request(null, [1, 2, 3, 4, 5]));
  r.target = inst(7, engine([], 'seven', 3));
  const stream = layer(sendToTarget)(r);
  assert.equal(load.inflight(7n), 1, 'counted at dispatch, before the stream is read');
  assert.equal(load.prefillTokens(7n), 5);
  const it = stream[Symbol.asyncIterator]();
  await it.next();
  assert.equal(load.prefillTokens(7n), 0, 'prefill ends with the first output');
  assert.equal(load.inflight(7n), 1);
  while (!(await it.next()).done);
  await it.return?.();
  assert.equal(load.inflight(7n), 0);
  assert.deepEqual(events, ['output', 'output', 'output', 'end'], 'the end is reported once');

  const failing = route(request());
  failing.target = { id: 8n, client: { generate: () => { throw new Error('refused'); } } };
  assert.throws(() => layer(sendToTarget)(failing), /refused/);
  assert.equal(load.inflight(8n), 0, 'a dispatch that throws ends its count at once');
  assert.deepEqual(events.slice(4), ['end']);
});

test('composed: a pinned request bypasses the queue and the busy gate', async () => {
  const served: string[] = [];
  let queued = 0;
  const policy: RouterPolicy = {
    select: (instances) => instances[0]!,
    admission: () => {
      queued++;
      return new Promise<void>(() => undefined);
    },
  };
  const router = new PushRouter('m', policy, { busyThresholds: decodeOver(0.5) });
  router.setInstances([inst(1, engine(served, 'one'), 90), inst(2, engine(served, 'two'), 90)]);
  assert.throws(() => router.generate(request(), ctx()), OverloadedError, 'both are busy');
  assert.equal(await drain(router.generate(request({ backend_instance_id: 2 }), ctx())), 2);
  assert.deepEqual(served, ['two']);
  assert.equal(queued, 0);
  assert.throws(() => router.generate(request({ backend_instance_id: 3 }), ctx()), new NotFoundError('Worker instance 3 not found for model m'));
});

test('composed: the busy gate runs once per decision, also with a router queue', async () => {
  let capacityReads = 0;
  let admissions = 0;
  const policy: RouterPolicy = {
    select: (instances) => instances[0]!,
    admission: () => {
      admissions++;
      return null;
    },
  };
  const router = new PushRouter('m', policy, { busyThresholds: decodeOver(0.5) });
  const counted = (id: number): Llm => ({
    id: BigInt(id),
    client: engine([], String(id)),
    capacity: () => {
      capacityReads++;
      return { kvUsedBlocks: 0, kvTotalBlocks: 100 };
    },
  });
  router.setInstances([counted(1), counted(2)]);
  await drain(router.generate(request(), ctx()));
  assert.equal(admissions, 1);
  assert.equal(capacityReads, 2, 'each instance checked once');
});

test('composed: a request that waited is routed among the instances live when it is released', async () => {
  const served: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const policy: RouterPolicy = { select: (instances) => instances[0]!, admission: () => gate };
  const router = new PushRouter('m', policy);
  router.setInstances([inst(1, engine(served, 'one'))]);
  const waiting = drain(router.generate(request(), ctx()));
  router.setInstances([inst(2, engine(served, 'two'))]);
  release();
  await waiting;
  assert.deepEqual(served, ['two']);

  router.setInstances([inst(1, engine(served, 'one'))]);
  const orphan = drain(router.generate(request(), ctx()));
  router.setInstances([]);
  await assert.rejects(orphan, UnavailableError, 'no instance left after the wait: 503 from the stream');
});

test('composed: load tracking counts each request once, through the whole chain', async () => {
  const load = new LoadTracker();
  let ends = 0;
  const policy = createRouterPolicy('least-loaded', { load });
  const tracked: RouterPolicy = { select: (i, r) => policy.select(i, r), track: () => ({ onOutput: () => undefined, onEnd: () => void ends++ }) };
  const router = new PushRouter('m', tracked, { load });
  router.setInstances([inst(1), inst(2)]);
  const streams = [router.generate(request(), ctx('a')), router.generate(request(), ctx('b'))];
  assert.deepEqual([load.inflight(1n), load.inflight(2n)], [1, 1], 'least-loaded spread them');
  for (const s of streams) await drain(s);
  assert.deepEqual([load.inflight(1n), load.inflight(2n)], [0, 0]);
  assert.equal(ends, 2);
});

test('composeLayers: the first layer is outermost', async () => {
  const order: string[] = [];
  const mark = (name: string) => (next: (r: Route<PreprocessedRequest, LLMEngineOutput>) => AsyncIterable<LLMEngineOutput>) =>
    (r: Route<PreprocessedRequest, LLMEngineOutput>) => {
      order.push(name);
      return next(r);
    };
  const r = route(request());
  r.target = inst(1);
  await drain(composeLayers([mark('outer'), mark('inner')], sendToTarget)(r));
  assert.deepEqual(order, ['outer', 'inner']);
});
