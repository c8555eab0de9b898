// `serve` is `frontend` + `mocker` over an in-process runtime: its workers reach the frontend
// through discovery, as a cluster's do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, postJson, serveInProcess } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const sorted = (ids: readonly bigint[]): bigint[] => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

test('the frontend routes to exactly the workers serve registered, and two serves in one process stay apart', async () => {
  const [one, two] = await Promise.all([serveInProcess(['--num-workers', '2']), serveInProcess(['--num-workers', '1'])]);
  try {
    assert.equal(one.service.instanceIds.length, 2);
    assert.deepEqual(sorted(one.service.models.get(MODEL).router.instanceIds), sorted(one.service.instanceIds));
    assert.deepEqual(two.service.models.get(MODEL).router.instanceIds, [...two.service.instanceIds]);
    const health = (await (await fetch(`${one.baseUrl}/health`)).json()) as { instances: { instance_id: string }[] };
    assert.deepEqual(health.instances.map((i) => i.instance_id).sort(), one.service.instanceIds.map((id) => id.toString(16)).sort());

    const foreign = two.service.instanceIds[0]!.toString();
    const res = await postJson(one.baseUrl, '/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 2 }, { 'x-dynamo-worker-instance-id': foreign });
    assert.equal(res.status, 404, 'a worker of the other serve is unknown here');
  } finally {
    await Promise.all([one.service.stop(), two.service.stop()]);
  }
});

test('--startup-time: the model is known at once, and served once its workers register', async () => {
  // Longer than serve takes to start on a loaded machine (7-10 s at a load average of 20), so the
  // worker is still waiting when serve returns; a shorter delay races the frontend's own startup.
  const { service, baseUrl } = await serveInProcess(['--startup-time', '20', '--speedup-ratio', '100']);
  try {
    assert.ok(service.models.has(MODEL));
    assert.equal(service.models.get(MODEL).router.instanceIds.length, 0);
    await eventually(() => service.models.get(MODEL).router.instanceIds.length === 1, 60_000, 'the worker to register');
    const res = await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 2 });
    assert.equal(res.status, 200);
  } finally {
    await service.stop();
  }
});
