// A client that leaves while its request is in remote prefill, with real processes (a kv-routing
// frontend, a slow prefill mocker and a decode mocker over file discovery and the TCP request
// plane): the prefill worker's request is cancelled, seen on the worker itself (the KV blocks it
// reports in use drop to 0 long before its prefill could have ended), and no decode work follows.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { postJson } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, until, waitForModel } from './helpers.js';

const kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-prefill-cancel-kv-'));
const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_EVENT_PLANE: 'zmq' };
const procs: RunningProcess[] = [];
let baseUrl: string;

before(async () => {
  const frontend = await startFrontendProcess(env, ['--router-mode', 'kv']);
  baseUrl = frontend.baseUrl;
  const decode = startMockerProcess(env, ['--disaggregation-mode', 'decode', '--block-size', '16', '--speedup-ratio', '100']);
  procs.push(frontend.proc, decode);
  await waitForModel(baseUrl, MODEL, decode, 120_000);
  // At a thousandth of the mocker's pace a prompt of a few thousand tokens takes over a minute to prefill.
  procs.push(startMockerProcess(env, ['--worker-type', 'prefill', '--block-size', '16', '--speedup-ratio', '0.001']));
});

after(async () => {
  await stopAll(procs);
  rmSync(kvRoot, { recursive: true, force: true });
});

/** The frontend's view of one gauge per worker type (each worker reports its own KV blocks in use). */
async function gauge(name: string, workerType: 'prefill' | 'decode'): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = new RegExp(`^(?:dynamo_frontend_)?${name}\\{[^}]*worker_type="${workerType}"[^}]*\\} (\\S+)$`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}

test('a client gone during remote prefill cancels the prefill request on its worker; nothing goes on to decode', async () => {
  // Requests are 503 until the frontend has found the prefill worker; a one-token prompt prefills in seconds.
  await until(async () => (await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: 'ready?', max_tokens: 1 })).status === 200, 180_000, 'the prefill worker');
  await until(async () => (await gauge('worker_active_decode_blocks', 'prefill')) === 0, 60_000, 'an idle prefill worker');

  const client = new AbortController();
  const prompt = 'Harbour lights and the keepers who trim their wicks through the winter storms. '.repeat(200);
  const request = fetch(`${baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, prompt, max_tokens: 8, stream: true }),
    signal: client.signal,
  }).then((res) => res.text()).catch((err: Error) => err.name);
  await until(async () => (await gauge('worker_active_decode_blocks', 'prefill')) > 0, 60_000, 'the prompt in prefill');
  await until(async () => (await gauge('worker_inflight_requests', 'prefill')) === 1, 30_000, 'the prefill request in flight');
  client.abort();
  assert.equal(await request, 'AbortError');
  // The prefill would run for more than a minute; cancelled, the worker frees its blocks at once.
  await until(async () => (await gauge('worker_active_decode_blocks', 'prefill')) === 0, 30_000, 'the prefill worker to free the cancelled prompt');
  await until(async () => (await gauge('worker_inflight_requests', 'prefill')) === 0, 30_000, 'no request in flight on the prefill worker');
  assert.equal(await gauge('worker_inflight_requests', 'decode'), 0, 'no decode request was sent');
  assert.equal(await gauge('worker_active_decode_blocks', 'decode'), 0);
});
