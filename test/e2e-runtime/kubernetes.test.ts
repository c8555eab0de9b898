// Kubernetes discovery end to end: a frontend and mocker workers as separate processes, each told
// its pod by POD_* variables, against a stand-in API server playing the cluster (the test is the
// EndpointSlice controller and the garbage collector). TCP request plane, ZMQ event plane (its
// channels found through the CRs too).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { kubeInstanceId } from '../../src/runtime/index.js';
import { eventually } from '../support/in-process.js';
import { DWMS, KubeApiServer } from '../support/kube-api-server.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, modelIds, startFrontendProcess, startMockerProcess, stopAll } from './helpers.js';

const NS = 'dynamo-system';
let api: KubeApiServer;
let dir: string;
let env: Record<string, string>;
let frontend: { proc: RunningProcess; baseUrl: string };
const workers: RunningProcess[] = [];

const pod = (name: string): Record<string, string> => ({ POD_NAME: name, POD_UID: `uid-${name}` });

function startWorker(name: string, args: string[] = []): RunningProcess {
  const w = startMockerProcess({ ...env, ...pod(name) }, args);
  workers.push(w);
  return w;
}

function markReady(names: string[]): void {
  api.putSlice(NS, 'backend-x7k2p', names.map((name) => ({ name, uid: `uid-${name}`, ready: true })));
}

before(async () => {
  api = new KubeApiServer();
  await api.start();
  dir = mkdtempSync(path.join(tmpdir(), 'kube-e2e-'));
  env = { DYN_DISCOVERY_BACKEND: 'kubernetes', KUBECONFIG: api.writeKubeconfig(dir), POD_NAMESPACE: NS, DYN_EVENT_PLANE: 'zmq' };
  frontend = await startFrontendProcess({ ...env, ...pod('frontend-0') });
});

after(async () => {
  await stopAll([frontend?.proc, ...workers]);
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a worker registers its CR; the frontend serves it once its pod is ready, through the openai client', async () => {
  startWorker('worker-0', ['--speedup-ratio', '10']);
  await eventually(() => Object.keys(api.get(DWMS(NS), 'worker-0')?.spec?.data?.endpoints ?? {}).length === 1, 60_000, 'worker-0 CR with its endpoint');
  const cr = api.get(DWMS(NS), 'worker-0')!;
  const id = kubeInstanceId('worker-0').toString(16);
  assert.deepEqual(Object.keys(cr.spec.data.endpoints), [`dynamo/backend/generate/${id}`]);
  assert.deepEqual(Object.keys(cr.spec.data.model_cards), [`dynamo/backend/generate/${id}`]);
  assert.ok(Object.keys(cr.spec.data.event_channels).length >= 1, 'ZMQ event channels published in the CR');
  assert.equal(cr.spec.data.model_cards[`dynamo/backend/generate/${id}`].card_json.display_name, MODEL);
  assert.deepEqual(await modelIds(frontend.baseUrl), [], 'not ready yet: not served');

  markReady(['worker-0']);
  const deadline = Date.now() + 60_000;
  while ((await modelIds(frontend.baseUrl)).length === 0) {
    assert.ok(Date.now() < deadline, `model never served:\n${frontend.proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const client = new OpenAI({ baseURL: `${frontend.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 });
  assert.equal(res.choices[0]!.finish_reason, 'length');
  assert.equal(res.usage?.completion_tokens, 5);
});

test('a worker pod going away mid-stream: the stream ends with an error, the worker leaves routing', async () => {
  const slow = startWorker('worker-1', ['--speedup-ratio', '0.05', '--model-name', 'slow-model']);
  markReady(['worker-0', 'worker-1']);
  const deadline = Date.now() + 60_000;
  while (!(await modelIds(frontend.baseUrl)).includes('slow-model')) {
    assert.ok(Date.now() < deadline, `slow-model never served:\n${slow.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const client = new OpenAI({ baseURL: `${frontend.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'slow-model',
    messages: [{ role: 'user', content: 'a long story' }],
    max_tokens: 5000,
    stream: true,
  });
  let chunks = 0;
  const outcome = (async () => {
    for await (const _ of stream) {
      if (++chunks === 1) {
        // The pod is deleted: it leaves its slice, the kubelet kills it, the GC deletes its CR.
        markReady(['worker-0']);
        slow.proc.kill('SIGKILL');
        api.deleteOwnedBy(NS, 'worker-1');
      }
    }
  })();
  await assert.rejects(outcome, (err: Error) => {
    assert.ok(chunks >= 1);
    assert.match(String(err.message), /worker|stream|terminated|error/i);
    return true;
  });
  await eventually(() => !api.get(DWMS(NS), 'worker-1'), 10_000, 'CR gone');
  const gone = Date.now() + 30_000;
  while ((await modelIds(frontend.baseUrl)).includes('slow-model')) {
    assert.ok(Date.now() < gone, 'slow-model still listed');
    await new Promise((r) => setTimeout(r, 100));
  }
  const after = await fetch(`${frontend.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
  });
  assert.equal(after.status, 404);
});

test('SIGTERM: the worker deletes its CR before the process exits', async () => {
  const w = startWorker('worker-2', ['--model-name', 'term-model']);
  await eventually(() => Object.keys(api.get(DWMS(NS), 'worker-2')?.spec?.data?.endpoints ?? {}).length === 1, 60_000, 'worker-2 registered');
  let presentAtExit: boolean | undefined;
  w.proc.on('exit', () => (presentAtExit = !!api.get(DWMS(NS), 'worker-2')));
  assert.equal(await w.stop(30_000), 0);
  assert.equal(presentAtExit, false, 'the CR was deleted before the process exited');
});
