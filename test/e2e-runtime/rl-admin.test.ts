// RL admin against worker processes, as a trainer drives it: a frontend with the inference surface
// and the admin facade on its own port, two mockers with --enable-rl, file discovery and the TCP
// request plane. Pause holds generation, the update lands on both workers and shows in the next
// answers, resume releases the held request; a worker that does not answer fails the op with its
// status; a worker that joins while a pause waits fails it with membership_changed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { decodeEndpointInstance, decodeModelRecord, FileDiscoveryBackend, INSTANCES_BUCKET, MODELS_BUCKET, watchRecords } from '../../src/runtime/index.js';
import { eventually, postJson } from '../support/in-process.js';
import { freePort, type RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'rl-admin-'));
const kvRoot = join(root, 'kv');
const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', ETCD_LEASE_TTL: '10' };
const workers: RunningProcess[] = [];
let frontend: { proc: RunningProcess; baseUrl: string };
let admin: string;
const rlInstances = new Set<string>();
let discovery: FileDiscoveryBackend;
let stopWatching: () => void;
const cards = new Set<string>();
let stopWatchingCards: () => void;

type Answer = { status: string; membership_epoch?: number; workers?: Record<string, unknown>[]; error_type?: string; message?: string; applied_weight_version?: string };

async function rl(op: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  const res = await fetch(`${admin}/v1/rl/${op}`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Answer };
}

const chat = (maxTokens: number, content = 'tell me a story') =>
  postJson(frontend.baseUrl, '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true });

before(async () => {
  mkdirSync(kvRoot);
  for (let i = 0; i < 2; i++) workers.push(startMockerProcess(env, ['--enable-rl', '--speedup-ratio', '10']));
  const rlPort = await freePort();
  frontend = await startFrontendProcess({ ...env, DYN_ENABLE_RL: 'true', DYN_ENABLE_RL_ENDPOINTS: 'true', DYN_RL_REQUEST_TIMEOUT_SECS: '6' }, ['--rl-port', String(rlPort)]);
  admin = `http://127.0.0.1:${rlPort}`;
  discovery = new FileDiscoveryBackend({ root: kvRoot, leaseTtlSecs: 10 });
  stopWatching = await watchRecords(discovery, `${INSTANCES_BUCKET}/dynamo/`, decodeEndpointInstance, {
    onPut: (key, instance) => instance.endpoint === 'rl' && rlInstances.add(key),
    onDelete: (key) => rlInstances.delete(key),
  });
  stopWatchingCards = await watchRecords(discovery, `${MODELS_BUCKET}/dynamo/`, decodeModelRecord, {
    onPut: (key) => cards.add(key),
    onDelete: (key) => cards.delete(key),
  });
  await waitForModel(frontend.baseUrl, MODEL, frontend.proc, 120_000);
  await eventually(() => rlInstances.size === 2, 120_000, 'two rl endpoints');
});

after(async () => {
  stopWatching?.();
  stopWatchingCards?.();
  await discovery?.close();
  await stopAll([frontend?.proc, ...workers]);
  rmSync(root, { recursive: true, force: true });
});

test('pause, update from the filesystem, resume: generation waits, then answers with the new version', async () => {
  const paused = await rl('pause?mode=keep');
  assert.equal(paused.status, 200, JSON.stringify(paused.json));
  assert.deepEqual(paused.json.workers, [{ status: 'ok', version: 'initial' }, { status: 'ok', version: 'initial' }]);

  let answered = false;
  const held = chat(4).then(async (res) => {
    answered = true;
    return { status: res.status, body: (await res.json()) as { prompt_token_ids?: number[]; metadata?: { weight_version: string }; choices: { token_ids?: number[] }[] } };
  });
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(answered, false, 'a paused worker holds new requests');

  const step = join(root, 'step_1');
  mkdirSync(step);
  writeFileSync(join(step, 'model.safetensors'), 'weights');
  const update = { version: 'step_1', target: { kind: 'base' }, transport: { backend: 'filesystem', filesystem: { path: step, require_marker: 'STABLE' } } };
  const unmarked = await rl('update_weights', update);
  assert.equal(unmarked.status, 502);
  assert.deepEqual(unmarked.json.workers!.map((w) => w.message), [
    "filesystem transport: require_marker 'STABLE' not found",
    "filesystem transport: require_marker 'STABLE' not found",
  ]);
  writeFileSync(join(step, 'STABLE'), '');
  const updated = await rl('update_weights', update);
  assert.equal(updated.status, 200, JSON.stringify(updated.json));
  assert.equal(updated.json.applied_weight_version, 'step_1');
  assert.equal(updated.json.membership_epoch, paused.json.membership_epoch);
  assert.equal(answered, false, 'still paused after the update');

  assert.equal((await rl('resume')).status, 200);
  const { status, body } = await held;
  assert.equal(status, 200);
  assert.equal(body.metadata?.weight_version, 'step_1');
  assert.ok(body.prompt_token_ids!.length > 5, 'DYN_ENABLE_RL: the prompt ids come back');
  assert.equal(body.choices[0]!.token_ids!.length, 4);
  for (let i = 0; i < 4; i++) {
    const res = await chat(2, `again ${i}`);
    assert.equal(((await res.json()) as { metadata: { weight_version: string } }).metadata.weight_version, 'step_1', 'every worker took the update');
  }
});

test('a worker that does not answer in time: 502 with every worker status, the silent one named', async () => {
  const silent = workers[1]!;
  silent.proc.kill('SIGSTOP');
  let res;
  try {
    res = await rl('pause?mode=abort');
  } finally {
    silent.proc.kill('SIGCONT');
  }
  assert.equal(res.status, 502, JSON.stringify(res.json));
  const failed = res.json.workers!.filter((w) => w.status === 'error');
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.message, 'dispatch timed out after 6s');
  assert.equal(failed[0]!.endpoint, 'rl');
  assert.equal(typeof failed[0]!.instance_id, 'number');
  // The late pause reaches the woken worker; resume after it.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await rl('resume')).status, 200);
  for (let i = 0; i < 4; i++) assert.equal((await chat(2, `after ${i}`)).status, 200);
});

test('a worker joining while a pause waits for requests in flight: 409 membership_changed', async () => {
  const stream = new AbortController();
  const res0 = await fetch(`${frontend.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'a very long story' }], max_tokens: 30000, ignore_eos: true, stream: true }),
    signal: stream.signal,
  });
  const reader = res0.body!.getReader();
  await reader.read();
  // The third worker publishes its card once loaded and its endpoints 2 s later: the pause goes
  // out in between, and the endpoints appear while it waits.
  workers.push(startMockerProcess(env, ['--enable-rl', '--startup-time', '2']));
  await eventually(() => cards.size === 3, 120_000, 'the third card');
  const pausing = rl('pause?mode=wait');
  await eventually(() => rlInstances.size === 3, 120_000, 'the third rl endpoint');
  // The pause has been waiting all along for the stream; ending it lets the fan-out finish.
  stream.abort();
  await reader.cancel().catch(() => undefined);
  const res = await pausing;
  assert.equal(res.status, 409, JSON.stringify(res.json));
  assert.equal(res.json.error_type, 'membership_changed');
  assert.match(res.json.message!, /^RL worker membership changed during fan-out \(before=\d+, after=\d+\)$/);
  const resumed = await rl('resume');
  assert.equal(resumed.status, 200);
  assert.equal(resumed.json.workers!.length, 3);
});
