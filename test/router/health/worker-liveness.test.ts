// Gray failures in one process: a worker that stops sending without closing is pinged once a stream
// passes its bound; unanswered, it leaves routing and every stream it held moves on with its tokens.
// A worker that answers and is busy elsewhere keeps its streams; one that answers but sends nothing
// on any stream for the ceiling is stuck.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerLostError, type EngineClient, type GenerateContext, type LLMEngineOutput, type PreprocessedRequest } from '../../../src/protocols/index.js';
import { createRouterPolicy, InstanceHealth, PushRouter, WorkerLiveness, type HealthChange, type SilenceBounds, type WorkerInstance } from '../../../src/router/index.js';
import { collect, fastEngine, ids, prompt, request } from '../../engines/mocker/helpers.js';

const mocker = fastEngine();
test.after(() => mocker.close());

const BOUNDS: SilenceBounds = { firstTokenMs: 100, prefillTokensPerSec: 1e9, paceFactor: 10, floorMs: 60, ceilingMs: 400, pingTimeoutMs: 50 };

/** A worker process that can be stopped and continued: while stopped it sends nothing and answers no ping. */
class Process {
  private stopped: Promise<void> | null = null;
  private resume: () => void = () => undefined;

  get isStopped(): boolean {
    return this.stopped !== null;
  }

  stop(): void {
    this.stopped ??= new Promise((resolve) => (this.resume = resolve));
  }

  cont(): void {
    this.stopped = null;
    this.resume();
  }

  /** Waits while stopped. */
  async running(): Promise<void> {
    while (this.stopped) await this.stopped;
  }
}

/** The mocker's answers from a process that stops itself after `stopAfter` outputs of one stream. */
function freezing(proc: Process, stopAfter = Infinity, seen: PreprocessedRequest[] = []): EngineClient {
  return {
    async *generate(req: PreprocessedRequest, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
      seen.push(req);
      let sent = 0;
      await proc.running();
      for await (const out of mocker.generate(req, ctx)) {
        await proc.running();
        yield out;
        if (++sent === stopAfter) proc.stop();
      }
    },
  };
}

function setup(workers: Record<number, Process>, limit = 3, bounds = BOUNDS) {
  const health = new InstanceHealth({ probe: async (id) => !workers[Number(id)]!.isStopped, probeBackoffMs: 20, maxProbeBackoffMs: 40 });
  const changes: HealthChange[] = [];
  health.subscribe((c) => changes.push(c));
  const liveness = new WorkerLiveness(health, bounds);
  const router = new PushRouter('mock', createRouterPolicy('round-robin'), {
    health,
    liveness,
    migration: { limit, maxSeqLen: null, logger: { warn: () => undefined } },
  });
  return { health, changes, router, liveness };
}

async function run(router: PushRouter, req: PreprocessedRequest, id: string): Promise<LLMEngineOutput[]> {
  const outs: LLMEngineOutput[] = [];
  for await (const out of router.generate(req, { requestId: id, signal: new AbortController().signal })) outs.push(out);
  return outs;
}

const REQS = [0, 1, 2, 3].map((i) => request(prompt(24, i), { seed: i, maxTokens: 40, ignoreEos: true }));

test('a stopped worker: its streams move on with exact tokens, it leaves routing, and it comes back once it answers', async () => {
  const stopped = new Process();
  const fine = new Process();
  const seen: PreprocessedRequest[] = [];
  const stoppedSeen: PreprocessedRequest[] = [];
  const { health, changes, router } = setup({ 1: stopped, 2: fine });
  router.setInstances([
    { id: 1n, client: freezing(stopped, 7, stoppedSeen) },
    { id: 2n, client: freezing(fine, Infinity, seen) },
  ]);
  const expected = await Promise.all(REQS.map(async (r) => ids(await collect(mocker, r))));
  const got = await Promise.all(REQS.map((r, i) => run(router, r, `r${i}`)));
  for (const [i, outs] of got.entries()) assert.deepEqual(ids(outs), expected[i], `request ${i}`);
  assert.equal(health.isDown(1n), true);
  assert.match(changes[0]!.reason, /^unresponsive: no answer to a request-plane ping/);
  assert.ok(seen.some((r) => r.token_ids.length > 24), 'a stream moved mid-way with its tokens');
  // Requests now avoid the stopped worker: its own record of requests does not grow.
  const onStopped = stoppedSeen.length;
  for (const [i, r] of REQS.entries()) assert.deepEqual(ids(await run(router, r, `after${i}`)), expected[i]);
  assert.equal(stoppedSeen.length, onStopped);
  stopped.cont();
  while (health.isDown(1n)) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(
    changes.map((c) => [c.id, c.down]),
    [
      [1n, true],
      [1n, false],
    ],
  );
  health.close();
});

test('a request whose first token never comes (a stopped worker) is retried elsewhere', async () => {
  const stopped = new Process();
  stopped.stop();
  const { health, router } = setup({ 1: stopped, 2: new Process() }, 0);
  router.setInstances([
    { id: 1n, client: freezing(stopped) },
    { id: 2n, client: freezing(new Process()) },
  ]);
  const expected = ids(await collect(mocker, REQS[0]!));
  for (let i = 0; i < 2; i++) assert.deepEqual(ids(await run(router, REQS[0]!, `f${i}`)), expected);
  assert.equal(health.isDown(1n), true);
  health.close();
});

/** Tokens 1..n, a pause of `pauseMs` after the `pauseAfter`th. */
function paced(n: number, everyMs: number, pauseAfter = Infinity, pauseMs = 0): EngineClient {
  return {
    async *generate(_req: PreprocessedRequest, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
      for (let i = 1; i <= n && !ctx.signal.aborted; i++) {
        await new Promise((r) => setTimeout(r, i === pauseAfter + 1 ? pauseMs : everyMs));
        yield { token_ids: [i], ...(i === n ? { finish_reason: 'length' as const } : {}) };
      }
    },
  };
}

/** One worker serving each request with the next engine of `engines`. */
function scripted(engines: EngineClient[]): EngineClient {
  let next = 0;
  return { generate: (req, ctx) => engines[next++]!.generate(req, ctx) };
}

test('a worker that answers and keeps other streams going keeps a stream it left silent past its bound', async () => {
  const { health, router } = setup({ 1: new Process() }, 0);
  router.setInstances([{ id: 1n, client: scripted([paced(5, 10, 2, 300), paced(40, 15)]) }]);
  const [held, busy] = await Promise.all([run(router, REQS[0]!, 'held'), run(router, REQS[1]!, 'busy')]);
  assert.deepEqual(ids(held), [1, 2, 3, 4, 5]);
  assert.equal(busy.length, 40);
  assert.equal(health.isDown(1n), false);
  health.close();
});

test('a worker that answers pings but sends nothing on any stream for the ceiling is stuck', async () => {
  const { health, changes, router } = setup({ 1: new Process(), 2: new Process() }, 0);
  router.setInstances([{ id: 1n, client: paced(10, 10, 3, 5_000) }]);
  await assert.rejects(run(router, REQS[0]!, 'stuck'), (err: unknown) => err instanceof WorkerLostError && /stuck: it answers pings but sent nothing/.test(err.message));
  assert.equal(health.isDown(1n), true);
  assert.match(changes[0]!.reason, /^stuck/);
  health.close();
});

test('the stall timeout still bounds a stream whatever its worker answers', async () => {
  const health = new InstanceHealth({ probe: async () => true });
  const router = new PushRouter('mock', createRouterPolicy('round-robin'), { health, liveness: new WorkerLiveness(health, BOUNDS), stallTimeoutMs: 150 });
  router.setInstances([{ id: 7n, client: paced(10, 10, 2, 5_000) } satisfies WorkerInstance]);
  await assert.rejects(run(router, REQS[0]!, 's'), (err: unknown) => err instanceof WorkerLostError && /inactivity timeout/.test(err.message));
  assert.equal(health.isDown(7n), true);
  health.close();
});

// Silence bounds no test waits for: only a departure can fail these streams in time.
const PATIENT: SilenceBounds = { ...BOUNDS, firstTokenMs: 60_000, floorMs: 60_000, ceilingMs: 120_000 };

test('a worker that leaves discovery and does not answer: its streams move at once with exact tokens', async () => {
  const stopped = new Process();
  const fine = new Process();
  const { health, router, liveness } = setup({ 1: stopped, 2: fine }, 3, PATIENT);
  router.setInstances([
    { id: 1n, client: freezing(stopped, 7) },
    { id: 2n, client: freezing(fine) },
  ]);
  const expected = await Promise.all(REQS.map(async (r) => ids(await collect(mocker, r))));
  const runs = Promise.all(REQS.map((r, i) => run(router, r, `d${i}`)));
  while (!stopped.isStopped) await new Promise((r) => setTimeout(r, 5));
  // Its lease ran out: discovery drops it, and the address it had answers nothing.
  router.setInstances([{ id: 2n, client: freezing(fine) }]);
  liveness.departed(1n, async () => !stopped.isStopped);
  const got = await runs;
  for (const [i, outs] of got.entries()) assert.deepEqual(ids(outs), expected[i], `request ${i}`);
  assert.equal(health.isDown(1n), true);
  stopped.cont();
  health.close();
});

test('a worker that leaves discovery but answers (it drains) keeps its streams to their end', async () => {
  const { health, router, liveness } = setup({ 1: new Process() }, 0, PATIENT);
  router.setInstances([{ id: 1n, client: scripted([paced(30, 10)]) }]);
  const draining = run(router, REQS[0]!, 'drain');
  await new Promise((r) => setTimeout(r, 50));
  router.setInstances([]);
  let pinged = 0;
  liveness.departed(1n, async () => ++pinged > 0);
  const outs = await draining;
  assert.equal(outs.length, 30);
  assert.equal(pinged, 1);
  health.close();
});
