// The RL admin facade on its own listener: each route's input, what it fans out, and upstream's
// answer shapes for success, per-worker failure (502), no workers (503), a moved membership (409)
// and the client's mistakes; API keys as on the admin routes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RlAdminServer } from '../../../../src/frontends/http/index.js';
import { createLogger } from '../../../../src/observability/index.js';
import {
  ApiKeys,
  BadGatewayError,
  ConflictError,
  UnavailableError,
  type RlFanout,
  type RlFanoutReport,
  type RlOp,
  type RlWorkerResult,
} from '../../../../src/protocols/index.js';

const EPOCH = 129837465;
const BIG_ID = 18446744073709551557n;
const target = (instanceId: bigint) => ({ namespace: 'dynamo', component: 'backend', endpoint: 'rl', instanceId });

/** A fan-out whose next result the test sets; it records what it was asked. */
class ScriptedFanout implements RlFanout {
  calls: { op: RlOp; body: Record<string, unknown> }[] = [];
  next: () => RlFanoutReport = () => this.allOk({ status: 'ok' });

  allOk(payload: Record<string, unknown>): RlFanoutReport {
    return { epoch: EPOCH, workers: [{ target: target(1n), response: { status: 'ok', ...payload } }, { target: target(2n), response: { status: 'ok', ...payload } }] };
  }

  async fanout(op: RlOp, body: Record<string, unknown>): Promise<RlFanoutReport> {
    this.calls.push({ op, body });
    return this.next();
  }
}

const fanout = new ScriptedFanout();
const keys = new ApiKeys();
let server: RlAdminServer;
let base: string;

before(async () => {
  server = new RlAdminServer({ host: '127.0.0.1', port: 0, fanout, keys, logger: createLogger('silent'), bodyLimitMb: 1 });
  base = `http://127.0.0.1:${await server.listen()}/v1/rl`;
});
after(() => server.close());

async function post(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Record<string, unknown>, headers: res.headers };
}

test('pause: mode and clear_cache from the query (keep, false by default), echoed with the epoch and the workers', async () => {
  fanout.next = () => fanout.allOk({ version: 'initial' });
  const res = await post('/pause');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { status: 'ok', mode: 'keep', clear_cache: false, membership_epoch: EPOCH, workers: [{ status: 'ok', version: 'initial' }, { status: 'ok', version: 'initial' }] });
  assert.deepEqual(fanout.calls.at(-1), { op: 'pause', body: { mode: 'keep', clear_cache: false } });
  assert.equal((await post('/pause?mode=abort&clear_cache=true')).json.mode, 'abort');
  assert.deepEqual(fanout.calls.at(-1)!.body, { mode: 'abort', clear_cache: true });
  const bad = await post('/pause?mode=later');
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.json, { status: 'error', error_type: 'invalid_request', message: 'invalid query parameter `mode`: expected keep, wait or abort' });
  assert.equal((await post('/pause?clear_cache=yes')).status, 400);
});

test('resume', async () => {
  fanout.next = () => fanout.allOk({});
  assert.deepEqual((await post('/resume')).json, { status: 'ok', membership_epoch: EPOCH, workers: [{ status: 'ok' }, { status: 'ok' }] });
  assert.deepEqual(fanout.calls.at(-1), { op: 'resume', body: {} });
});

test('init_transport: the body goes to every worker; transport_id defaults to the backend', async () => {
  fanout.next = () => fanout.allOk({ transport_id: 'rl-nccl', ready: true });
  const body = { transport_id: 'rl-nccl', backend: 'nccl', nccl: { master_address: 'trainer-0.trainer', master_port: 29500, world_size: 9, rank_offset: 1 } };
  const res = await post('/init_transport', body);
  assert.deepEqual(res.json, {
    status: 'ok',
    transport_id: 'rl-nccl',
    backend: 'nccl',
    ready: true,
    membership_epoch: EPOCH,
    workers: [{ status: 'ok', transport_id: 'rl-nccl', ready: true }, { status: 'ok', transport_id: 'rl-nccl', ready: true }],
  });
  assert.deepEqual(fanout.calls.at(-1), { op: 'init_transport', body });
  assert.equal((await post('/init_transport', { backend: 'filesystem' })).json.transport_id, 'filesystem');
  assert.equal((await post('/init_transport', [1])).status, 422);
});

test('update_weights: version, target and transport go out; the answer names the applied version and backend', async () => {
  fanout.next = () => fanout.allOk({ message: 'Updated weights from filesystem', version: 'step_42' });
  const body = {
    version: 'step_42',
    target: { kind: 'base' },
    transport: { backend: 'filesystem', filesystem: { path: '/share/broadcasts/step_42', require_marker: 'STABLE' } },
    pause_mode: 'keep',
    clear_cache: true,
  };
  const res = await post('/update_weights', body);
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, {
    status: 'ok',
    applied_weight_version: 'step_42',
    backend: 'filesystem',
    membership_epoch: EPOCH,
    workers: [
      { status: 'ok', message: 'Updated weights from filesystem', version: 'step_42' },
      { status: 'ok', message: 'Updated weights from filesystem', version: 'step_42' },
    ],
  });
  assert.deepEqual(fanout.calls.at(-1), { op: 'update_weights', body });
  const unload = { version: 'step_44', target: { kind: 'lora', name: 'qwen3-06b-gsm8k', op: 'unload' } };
  assert.equal((await post('/update_weights', unload)).json.backend, '', 'a LoRA unload needs no transport');
  assert.deepEqual(fanout.calls.at(-1)!.body, { ...unload, transport: null });
  assert.deepEqual((await post('/update_weights', { version: 'v', target: { kind: 'base' } })).json, { status: 'error', error_type: 'invalid_request', message: 'missing field `transport`' });
  assert.equal((await post('/update_weights', { target: { kind: 'base' }, transport: {} })).status, 422);
  assert.equal((await post('/update_weights', { version: 'v', target: {}, transport: {}, clear_cache: 'no' })).status, 422);
  assert.equal((await post('/update_weights')).status, 422);
});

test('a worker that refuses or fails: 502 with every worker status, the failed call naming its instance exactly', async () => {
  const workers: RlWorkerResult[] = [
    { target: target(1n), response: { status: 'ok', version: 'step_42' } },
    { target: target(2n), response: { status: 'error', message: "filesystem transport: require_marker 'STABLE' not found" } },
    { target: target(BIG_ID), error: 'dispatch timed out after 30s' },
  ];
  fanout.next = () => ({ epoch: EPOCH, workers });
  const res = await post('/update_weights', { version: 'step_42', target: { kind: 'base' }, transport: { backend: 'filesystem', filesystem: { path: '/x' } } });
  assert.equal(res.status, 502);
  assert.match(res.text, /"instance_id":18446744073709551557[,}]/, 'a u64 id keeps every digit');
  assert.deepEqual(res.json, {
    status: 'error',
    stage: 'weight_transport_update',
    backend: 'filesystem',
    membership_epoch: EPOCH,
    workers: [
      { status: 'ok', version: 'step_42' },
      { status: 'error', message: "filesystem transport: require_marker 'STABLE' not found" },
      { status: 'error', namespace: 'dynamo', component: 'backend', endpoint: 'rl', instance_id: Number(BIG_ID), message: 'dispatch timed out after 30s' },
    ],
  });
  assert.deepEqual((await post('/pause')).json.status, 'error');
  assert.deepEqual(Object.keys((await post('/init_transport', { backend: 'nccl', transport_id: 't' })).json), ['status', 'transport_id', 'backend', 'membership_epoch', 'workers']);
});

test('fan-out errors: no workers 503, membership changed 409, anything else 502', async () => {
  const cases: [Error, number, string][] = [
    [new UnavailableError("no live RL workers found in namespace 'dynamo' for endpoint 'rl'"), 503, 'no_workers'],
    [new ConflictError('RL worker membership changed during fan-out (before=1, after=2)'), 409, 'membership_changed'],
    [new BadGatewayError('cannot list RL workers: etcd is down'), 502, 'fanout_failed'],
  ];
  for (const [err, status, type] of cases) {
    fanout.next = () => {
      throw err;
    };
    const res = await post('/resume');
    assert.equal(res.status, status);
    assert.deepEqual(res.json, { status: 'error', error_type: type, message: err.message });
  }
});

test('methods and routes: only POST, only the four ops', async () => {
  const get = await fetch(`${base}/pause`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  for (const dropped of ['/state', '/health', '/weight_version', '/workers']) assert.equal((await post(dropped)).status, 404, dropped);
});

test('with API keys configured, every route needs one', async () => {
  keys.replace(['sk-rl']);
  try {
    fanout.next = () => fanout.allOk({});
    const missing = await post('/resume');
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    assert.deepEqual(missing.json, { status: 'error', error_type: 'unauthenticated', message: 'Missing API key: send `Authorization: Bearer <key>`' });
    assert.equal((await post('/resume', undefined, { authorization: 'Bearer wrong' })).json.message, 'Invalid API key');
    assert.equal((await post('/resume', undefined, { authorization: 'Bearer sk-rl' })).status, 200);
    assert.equal((await post('/resume', undefined, { 'x-api-key': 'sk-rl' })).status, 200);
  } finally {
    keys.replace([]);
  }
});
