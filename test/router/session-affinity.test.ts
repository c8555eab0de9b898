import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OverloadedError, ValidationError, type EngineClient, type LLMEngineOutput, type PreprocessedRequest } from '../../src/protocols/index.js';
import {
  createRouterPolicy,
  decodeSessionAffinityEvent,
  PushRouter,
  SessionAffinity,
  startSessionAffinitySync,
  type EventBus,
  type WorkerInstance,
} from '../../src/router/index.js';

const S = 1000;

function request(session: string | null, routing: PreprocessedRequest['routing'] = {}): PreprocessedRequest {
  return {
    model: 'm', token_ids: [1, 2, 3], stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [],
    routing: { ...routing, session_id: session },
  };
}

/** An engine that answers with its own id as the one token. */
function engine(id: number): EngineClient {
  return {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [id], finish_reason: 'stop' };
    },
  };
}

const workers = (...ids: number[]): WorkerInstance[] => ids.map((id) => ({ id: BigInt(id), client: engine(id) }));
const ctx = (requestId: string) => ({ requestId, signal: new AbortController().signal });

/** Sends a request and returns the worker that answered it. */
async function send(router: PushRouter, req: PreprocessedRequest, id = 'r'): Promise<bigint> {
  let answeredBy = -1;
  for await (const out of router.generate(req, ctx(id))) answeredBy = out.token_ids[0]!;
  return BigInt(answeredBy);
}

function roundRobinRouter(affinity: SessionAffinity | null, opts: { activePrefillTokensThreshold?: number } = {}): PushRouter {
  return new PushRouter('m', createRouterPolicy('round-robin'), {
    affinity,
    busyThresholds: { activeDecodeBlocksThreshold: null, activePrefillTokensThreshold: opts.activePrefillTokensThreshold ?? null, activePrefillTokensThresholdFrac: null },
  });
}

test('a session sticks to the worker of its first request; others rotate as usual', async () => {
  const router = roundRobinRouter(new SessionAffinity({ ttlSecs: 60, mode: 'hard' }));
  router.setInstances(workers(1, 2, 3));
  const first = await send(router, request('s1'));
  for (let i = 0; i < 5; i++) assert.equal(await send(router, request('s1')), first);
  const others = new Set<bigint>();
  for (let i = 0; i < 3; i++) others.add(await send(router, request(null)));
  assert.equal(others.size, 3, 'requests without a session are routed by the policy');
});

test('the TTL is an idle timeout: in-flight requests keep the binding, the clock restarts at their end', () => {
  let now = 0;
  const a = new SessionAffinity({ ttlSecs: 10, mode: 'hard', now: () => now });
  const end = a.dispatched('s', 7n);
  now = 60 * S;
  assert.equal(a.boundWorker('s'), 7n, 'a request in flight keeps it alive');
  end();
  now = 69 * S;
  assert.equal(a.boundWorker('s'), 7n);
  now = 70 * S;
  assert.equal(a.boundWorker('s'), null, 'idle for the TTL: gone');
});

test('hard: the bound worker is used while it exists, and the session moves only when it is gone', async () => {
  const router = roundRobinRouter(new SessionAffinity({ ttlSecs: 60, mode: 'hard' }), { activePrefillTokensThreshold: 0 });
  router.setInstances(workers(1, 2));
  // Threshold 0: every worker with a prompt in flight counts as busy; hard ignores that.
  const first = await send(router, request('s'));
  const held = router.generate(request('s'), ctx('held'));
  assert.equal(router.pick(request('s')).id, first, 'busy, and still the target');
  for await (const _ of held);
  router.setInstances(workers(1, 2).filter((w) => w.id !== first));
  const moved = await send(router, request('s'));
  assert.notEqual(moved, first);
  router.setInstances(workers(1, 2));
  assert.equal(router.pick(request('s')).id, moved, 'rebound to the worker it moved to');
});

test('concurrent first requests of a session end on one worker, though each was decided before the other bound it', async () => {
  // A policy with an asynchronous prepare step (as with a remote indexer): both first requests
  // pass the session step unbound, wait there, and round robin then picks two workers.
  const gated = (): { router: PushRouter; release: () => void } => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const policy = Object.assign(Object.create(createRouterPolicy('round-robin')) as ReturnType<typeof createRouterPolicy>, { prepare: () => gate });
    const router = new PushRouter('m', policy, {
      affinity: new SessionAffinity({ ttlSecs: 60, mode: 'hard' }),
      busyThresholds: { activeDecodeBlocksThreshold: null, activePrefillTokensThreshold: null, activePrefillTokensThresholdFrac: null },
    });
    router.setInstances(workers(1, 2, 3));
    return { router, release };
  };
  const { router, release } = gated();
  const first = [send(router, request('s'), 'a'), send(router, request('s'), 'b'), send(router, request('s'), 'c')];
  release();
  const answered = await Promise.all(first);
  assert.deepEqual(new Set(answered).size, 1, `one worker for the session: ${answered.join(', ')}`);
  // The same policy spreads requests without a session, so the single worker above is the binding's.
  const plain = gated();
  const spread = [send(plain.router, request(null), 'a'), send(plain.router, request(null), 'b'), send(plain.router, request(null), 'c')];
  plain.release();
  assert.equal(new Set(await Promise.all(spread)).size, 3);
});

test('soft: a bound worker over a busy threshold is passed over and the session moves', async () => {
  const router = roundRobinRouter(new SessionAffinity({ ttlSecs: 60, mode: 'soft' }), { activePrefillTokensThreshold: 0 });
  router.setInstances(workers(1, 2));
  const first = await send(router, request('s'));
  assert.equal(router.pick(request('s')).id, first, 'not busy: kept');
  const held = router.generate(request(null, { backend_instance_id: String(first) }), ctx('load'));
  const moved = router.pick(request('s')).id;
  assert.notEqual(moved, first, 'busy: another worker');
  await send(router, request('s'), 'x');
  assert.equal(router.affinity!.boundWorker('s'), moved, 'rebound once dispatched');
  for await (const _ of held);
});

test('a rebound session still expires: requests that ran on the old worker do not hold the new binding', () => {
  let now = 0;
  const a = new SessionAffinity({ ttlSecs: 10, mode: 'soft', now: () => now });
  const endOld = a.dispatched('s', 1n);
  const endNew = a.dispatched('s', 2n);
  endNew();
  endOld();
  now = 10 * S;
  assert.equal(a.boundWorker('s'), null);
});

test('an explicit worker that conflicts with the binding is a 400; the same worker is fine', async () => {
  const router = roundRobinRouter(new SessionAffinity({ ttlSecs: 60, mode: 'hard' }));
  router.setInstances(workers(1, 2));
  const bound = await send(router, request('s'));
  const other = bound === 1n ? 2n : 1n;
  assert.throws(() => router.pick(request('s', { backend_instance_id: String(other) })), (err: unknown) =>
    err instanceof ValidationError && err.message === `session s is bound to worker ${bound}, not ${other}`);
  assert.equal(router.pick(request('s', { backend_instance_id: String(bound) })).id, bound);
});

test('limits: ids over 256 bytes are a 400; past the entry limit a new session is refused', async () => {
  const router = roundRobinRouter(new SessionAffinity({ ttlSecs: 60, mode: 'hard', maxSessions: 2 }));
  router.setInstances(workers(1));
  assert.throws(() => router.pick(request('é'.repeat(129))), (err: unknown) => err instanceof ValidationError && /must not exceed 256 bytes/.test(err.message));
  router.pick(request('x'.repeat(256)));
  await send(router, request('a'));
  await send(router, request('b'));
  assert.throws(() => router.pick(request('c')), (err: unknown) => err instanceof OverloadedError && err.message === 'session affinity entry limit reached');
  assert.equal(router.pick(request('a')).id, 1n, 'bound sessions still route');
});

test('without a TTL there is no affinity', async () => {
  const router = roundRobinRouter(null);
  router.setInstances(workers(1, 2));
  assert.notEqual(await send(router, request('s')), await send(router, request('s')));
});

/** An in-process event bus, as the inproc event plane delivers (to every subscriber, sender included). */
function memoryBus(): EventBus & { sent: string[] } {
  const subs = new Map<string, Set<(p: Buffer) => void>>();
  const sent: string[] = [];
  return {
    sent,
    publish(subject, payload) {
      sent.push(String(payload));
      for (const h of subs.get(subject) ?? []) h(Buffer.from(payload));
    },
    async subscribe(subject, handler) {
      if (!subs.has(subject)) subs.set(subject, new Set());
      subs.get(subject)!.add(handler);
      return () => subs.get(subject)!.delete(handler);
    },
  };
}

test('replica sync: a binding made by one router is followed by the other; first live binding wins', async () => {
  const bus = memoryBus();
  const scope = 'namespace.ns.component.backend';
  const [a, b] = [roundRobinRouter(new SessionAffinity({ ttlSecs: 60, mode: 'hard' })), roundRobinRouter(new SessionAffinity({ ttlSecs: 60, mode: 'hard' }))];
  for (const r of [a, b]) r.setInstances(workers(1, 2, 3));
  const stops = await Promise.all([a, b].map((r, i) =>
    startSessionAffinitySync(bus, r.affinity!, { scope, routerId: BigInt(100 + i), knows: (w) => r.instanceIds.includes(w) })));
  try {
    await send(b, request(null));
    const bound = await send(a, request('shared'));
    assert.equal(b.pick(request('shared')).id, bound, 'the replica routes the session to the same worker');
    const event = decodeSessionAffinityEvent(bus.sent.find((s) => s.includes('"shared"'))!);
    assert.deepEqual(event, { session_id: 'shared', worker_id: bound, dp_rank: null, router_id: 100n });
    assert.match(bus.sent[0]!, /^\{"session_id":"shared","worker_id":\d+,"dp_rank":null,"router_id":100\}$/);

    const own = await send(b, request('mine'));
    b.affinity!.applyRemote('mine', own === 1n ? 2n : 1n);
    assert.equal(b.affinity!.boundWorker('mine'), own, 'a live binding is not overwritten');
    bus.publish(`${scope}.session_affinity_events`, JSON.stringify({ session_id: 'ghost', worker_id: 99, dp_rank: null, router_id: 100 }));
    assert.equal(b.affinity!.boundWorker('ghost'), null, 'a worker this router does not know is ignored');
  } finally {
    for (const stop of stops) stop();
  }
});
