// Faults of the infrastructure and of workers, with real processes: each ends with a complete answer
// or a clear error, never a hang. A frontend over etcd with DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS=2,
// mocker workers (one on the NATS request plane) and scripted workers that stall or leave.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startEtcd, startNats, type InfraServer } from '../support/infra-servers.js';
import { eventually, postJson } from '../support/in-process.js';
import { startProcess, type RunningProcess } from '../support/processes.js';
import { complete, MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

const SCRIPTED_WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/scripted-worker.js');
/** Far beyond anything the faults should take: reaching it means something hung. */
const HANG_BOUND_MS = 45_000;

let etcd: InfraServer;
let nats: InfraServer;
let env: Record<string, string>;
let frontend: { proc: RunningProcess; baseUrl: string };
const procs: RunningProcess[] = [];

function scriptedWorker(model: string, mode: 'stall' | 'silent'): RunningProcess {
  const proc = startProcess([], { ...env, SCRIPTED_MODEL: model, SCRIPTED_MODE: mode }, SCRIPTED_WORKER);
  procs.push(proc);
  return proc;
}

/** A streamed completion read to its end, failing (instead of hanging) past HANG_BOUND_MS. */
async function streamCompletion(model: string, maxTokens = 8, ignoreEos = false) {
  const res = await fetch(`${frontend.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, prompt: 'hello', max_tokens: maxTokens, stream: true, ignore_eos: ignoreEos }),
    signal: AbortSignal.timeout(HANG_BOUND_MS),
  });
  return { status: res.status, text: await res.text() };
}

before(async () => {
  [etcd, nats] = await Promise.all([startEtcd(), startNats()]);
  env = { DYN_DISCOVERY_BACKEND: 'etcd', ETCD_ENDPOINTS: etcd.url, NATS_SERVER: nats.url };
  frontend = await startFrontendProcess({ ...env, DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS: '2' });
  procs.push(startMockerProcess(env));
  await waitForModel(frontend.baseUrl, MODEL, frontend.proc, 60_000);
});

after(async () => {
  await stopAll([frontend?.proc, ...procs]);
  await Promise.all([etcd?.dispose(), nats?.dispose()]);
});

test('a worker that stalls: the stream ends with an error after the timeout, the worker is told to stop', async () => {
  const worker = scriptedWorker('staller', 'stall');
  await waitForModel(frontend.baseUrl, 'staller', frontend.proc, 60_000);
  const { status, text } = await streamCompletion('staller');
  assert.equal(status, 200);
  assert.match(text, /"text":"Hello"/, 'the token before the stall reached the client');
  assert.match(text, /data: \{"error"/, 'then a clear error event');
  await eventually(() => worker.output().includes('ABORTED'), HANG_BOUND_MS, 'the stalled worker told to stop');
  const downLine = (): boolean => frontend.proc.output().split('\n').some((l) => l.includes('worker instance marked down') && l.includes('inactivity timeout'));
  await eventually(downLine, HANG_BOUND_MS, 'the frontend logs the stalled instance as down');
  // The stalled worker is out of routing: its model has no routable worker left, a clear 503.
  const res = await postJson(frontend.baseUrl, '/v1/completions', { model: 'staller', prompt: 'x', max_tokens: 2 });
  assert.equal(res.status, 503);
});

test('a worker that accepts a request and dies before its first byte: a clear error, never a hang', async () => {
  const worker = scriptedWorker('leaver', 'silent');
  await waitForModel(frontend.baseUrl, 'leaver', frontend.proc, 60_000);
  const answer = streamCompletion('leaver');
  await eventually(() => worker.output().includes('ACCEPTED'), HANG_BOUND_MS, 'the request reached the worker');
  worker.proc.kill('SIGKILL');
  const { status, text } = await answer;
  if (status === 200) assert.match(text, /data: \{"error"/, text);
  else assert.equal(status, 503, text);
  // Its lease lives on (30 s), but it is out of routing at once.
  const next = await postJson(frontend.baseUrl, '/v1/completions', { model: 'leaver', prompt: 'x', max_tokens: 2 });
  assert.equal(next.status, 503);
});

test('nats-server restarted under the NATS request plane: requests after the restart succeed', async () => {
  procs.push(startMockerProcess({ ...env, DYN_REQUEST_PLANE: 'nats' }, ['--model-name', 'over-nats']));
  await waitForModel(frontend.baseUrl, 'over-nats', frontend.proc, 60_000);
  assert.equal((await complete(frontend.baseUrl, 'over-nats')).status, 200);
  await nats.stop();
  await nats.restart();
  // While clients reconnect a request may fail, clearly; then requests succeed again.
  const deadline = Date.now() + HANG_BOUND_MS;
  for (;;) {
    const { status, body } = await complete(frontend.baseUrl, 'over-nats');
    if (status === 200) break;
    assert.ok(status === 503 || status === 500, `a clear error while NATS comes back: ${status} ${JSON.stringify(body)}`);
    assert.ok(Date.now() < deadline, 'requests over NATS succeed again after the restart');
    await new Promise((r) => setTimeout(r, 250));
  }
  for (let i = 0; i < 5; i++) assert.equal((await complete(frontend.baseUrl, 'over-nats')).status, 200);
});

test('etcd restarted while a stream is in flight: the stream completes, serving goes on, a new worker is found', async () => {
  const inFlight = streamCompletion(MODEL, 300, true);
  await etcd.stop();
  await etcd.restart();
  const { status, text } = await inFlight;
  assert.equal(status, 200);
  assert.match(text, /"finish_reason":"length"/);
  assert.equal((await complete(frontend.baseUrl)).status, 200);
  procs.push(startMockerProcess(env, ['--model-name', 'after-etcd-restart']));
  await waitForModel(frontend.baseUrl, 'after-etcd-restart', frontend.proc, 60_000);
  assert.equal((await complete(frontend.baseUrl, 'after-etcd-restart')).status, 200);
});
