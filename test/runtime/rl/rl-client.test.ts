// The RL admin fan-out over a real (in-process) discovery and request plane: every live `rl`
// endpoint of the namespace gets the op once, addressed to its own instance; a worker that fails or
// times out is a result; no workers and a membership that moved are errors.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { ConflictError, UnavailableError, workerSucceeded, type RlWorkerResult } from '../../../src/protocols/index.js';
import { DistributedRuntime, RlClient, type EndpointHandler } from '../../../src/runtime/index.js';
import { IN_PROCESS_RUNTIME } from '../../support/in-process-runtime.js';

const runtimes: DistributedRuntime[] = [];
after(async () => {
  for (const rt of runtimes.reverse()) await rt.shutdown();
});

/** A fresh in-process cluster: the frontend's runtime, and a way to add workers to it. */
async function cluster() {
  const frontend = await DistributedRuntime.create({ ...IN_PROCESS_RUNTIME, memScope: `rl-${randomUUID()}` });
  runtimes.push(frontend);
  const seen: { instance: bigint; request: unknown }[] = [];
  const worker = async (component: string, answer: (request: unknown) => Promise<unknown> = async () => ({ status: 'ok' }), endpoint = 'rl') => {
    const rt = await frontend.sibling();
    runtimes.push(rt);
    const handler: EndpointHandler = async function* (request) {
      seen.push({ instance: rt.instanceId, request });
      yield { data: await answer(request) };
    };
    await rt.namespace('ns').component(component).endpoint(endpoint).serveEndpoint(handler);
    return rt;
  };
  const client = (components: string[] = [], requestTimeoutMs = 5000) =>
    new RlClient({ backend: frontend.discovery, requestClient: frontend.requestClient, namespace: 'ns', components, requestTimeoutMs });
  return { frontend, worker, client, seen };
}

const byInstance = (workers: RlWorkerResult[]) => [...workers].sort((a, b) => (a.target.instanceId < b.target.instanceId ? -1 : 1));

test('every live rl endpoint of the namespace gets the op once, at its own instance', async () => {
  const { worker, client, seen } = await cluster();
  const a = await worker('backend');
  const b = await worker('backend');
  const p = await worker('prefill');
  await worker('backend', undefined, 'generate');
  const report = await client().fanout('pause', { mode: 'keep', clear_cache: false });
  assert.equal(report.workers.length, 3);
  assert.ok(report.workers.every(workerSucceeded));
  assert.deepEqual(new Set(seen.map((s) => s.instance)), new Set([a.instanceId, b.instanceId, p.instanceId]));
  assert.deepEqual(seen[0]!.request, { op: 'pause', body: { mode: 'keep', clear_cache: false } });
  assert.deepEqual(new Set(report.workers.map((w) => w.target.instanceId)), new Set([a.instanceId, b.instanceId, p.instanceId]));
  assert.equal((await client().fanout('resume', {})).epoch, report.epoch, 'same members, same epoch');
  assert.ok(Number.isSafeInteger(report.epoch));

  seen.length = 0;
  const only = await client(['prefill']).fanout('describe', {});
  assert.deepEqual(only.workers.map((w) => w.target.component), ['prefill']);
  assert.deepEqual(seen.map((s) => s.instance), [p.instanceId]);
  assert.notEqual(only.epoch, report.epoch);
});

test('no live rl endpoint: unavailable, naming the namespace', async () => {
  const { worker, client } = await cluster();
  await worker('backend', undefined, 'generate');
  await assert.rejects(client().fanout('pause', {}), (err: Error) => err instanceof UnavailableError && /no live RL workers found in namespace 'ns' for endpoint 'rl'/.test(err.message));
});

test('a worker that refuses, fails or does not answer in time is its own result', async () => {
  const { worker, client } = await cluster();
  const ok = await worker('backend');
  const refusing = await worker('backend', async () => ({ status: 'error', message: "filesystem transport: require_marker 'STABLE' not found" }));
  const failing = await worker('backend', async () => {
    throw new Error('engine is gone');
  });
  const silent = await worker('backend', () => new Promise(() => undefined));
  const report = await client([], 300).fanout('update_weights', { version: 'v' });
  const results = new Map(report.workers.map((w) => [w.target.instanceId, w]));
  assert.deepEqual(results.get(ok.instanceId)!.response, { status: 'ok' });
  assert.equal(results.get(refusing.instanceId)!.response!.message, "filesystem transport: require_marker 'STABLE' not found");
  assert.equal(workerSucceeded(results.get(refusing.instanceId)!), false);
  assert.match(results.get(failing.instanceId)!.error!, /^dispatch failed: .*engine is gone/);
  assert.equal(results.get(silent.instanceId)!.error, 'dispatch timed out after 0.3s');
  assert.equal(byInstance(report.workers).length, 4);
});

test('a worker joining while the calls are out: membership_changed', async () => {
  const { worker, client } = await cluster();
  let joined = false;
  await worker('backend', async () => {
    if (!joined) await worker('backend');
    joined = true;
    return { status: 'ok' };
  });
  await assert.rejects(client().fanout('pause', {}), (err: Error) => err instanceof ConflictError && /RL worker membership changed during fan-out \(before=\d+, after=\d+\)/.test(err.message));
  assert.equal((await client().fanout('pause', {})).workers.length, 2, 'the next op reaches both');
});

test('a worker leaving while the calls are out: membership_changed', async () => {
  const { worker, client } = await cluster();
  const leaving = await worker('prefill');
  await worker('backend', async () => {
    await leaving.shutdown();
    return { status: 'ok' };
  });
  await assert.rejects(client().fanout('resume', {}), ConflictError);
});
