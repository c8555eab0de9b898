// Graceful rollout (issue 13 point 8): a worker's SIGTERM removes its discovery records before the
// process exits, in every discovery backend (kubernetes: e2e-runtime/kubernetes.test.ts), and a
// frontend's readiness (/health) turns 503 first while in-flight streams finish.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseCommandLine } from '../../src/config/index.js';
import { startMocker } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { MemDiscoveryBackend, type StoreEvent } from '../../src/runtime/index.js';
import { EtcdDiscoveryBackend } from '../../src/runtime/discovery/etcd-backend.js';
import { eventually } from '../support/in-process.js';
import { startEtcd } from '../support/infra-servers.js';
import { freePort, startProcess, waitForModel } from '../support/processes.js';
import { startMockerProcess } from './helpers.js';

const RECORDS = ['v1/instances', 'v1/mdc'];

test('mem: stopping a worker (what its SIGTERM does) deletes its records', async () => {
  const parsed = parseCommandLine(['mocker', '--discovery-backend', 'mem', '--request-plane', 'inproc', '--event-plane', 'inproc'], {});
  assert.equal(parsed.kind, 'run');
  if (parsed.kind !== 'run') return;
  const seen: StoreEvent[] = [];
  const watcher = new MemDiscoveryBackend();
  const stop = await watcher.watch('v1/', (e) => seen.push(e));
  const mocker = await startMocker(parsed.config, createLogger('silent'));
  const keys = seen.filter((e) => e.type === 'put').map((e) => e.key);
  assert.ok(RECORDS.every((b) => keys.some((k) => k.startsWith(b))), keys.join());
  await mocker.stop();
  const deleted = seen.filter((e) => e.type === 'delete').map((e) => e.key);
  assert.deepEqual(deleted.sort(), keys.sort());
  stop();
});

function recordFiles(root: string): string[] {
  return RECORDS.flatMap((bucket) => {
    const dir = path.join(root, bucket);
    return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')) : [];
  });
}

test('file: a worker SIGTERMed removes its files before it exits', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'graceful-file-'));
  try {
    const w = startMockerProcess({ DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: root, ETCD_LEASE_TTL: '60' });
    await eventually(() => recordFiles(root).length === 2, 60_000, 'instance and card files');
    let atExit: string[] | undefined;
    w.proc.on('exit', () => (atExit = recordFiles(root)));
    assert.equal(await w.stop(30_000), 0, w.output());
    assert.deepEqual(atExit, []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('etcd: a worker SIGTERMed deletes its keys (no waiting for the lease TTL)', async () => {
  const etcd = await startEtcd();
  const backend = new EtcdDiscoveryBackend({ endpoints: [etcd.url], leaseTtlSecs: 60 });
  try {
    const live = new Map<string, string>();
    const stop = await backend.watch('v1/', (e) => (e.type === 'put' ? live.set(e.key, e.value) : live.delete(e.key)));
    const w = startMockerProcess({ ETCD_ENDPOINTS: etcd.url, DYN_EVENT_PLANE: 'zmq', ETCD_LEASE_TTL: '60' });
    await eventually(() => RECORDS.every((b) => [...live.keys()].some((k) => k.startsWith(b))), 60_000, 'worker keys');
    assert.equal(await w.stop(30_000), 0, w.output());
    stop();
    // Listed after the exit: with a 60 s lease, only the worker's own revoke can have removed them.
    const left: string[] = [];
    const unwatch = await backend.watch('v1/', (e) => left.push(e.key));
    unwatch();
    assert.deepEqual(left, []);
  } finally {
    await backend.close();
    await etcd.dispose();
  }
});

test('frontend SIGTERM: /health turns 503 first, /live stays 200 and the in-flight stream completes', async () => {
  const port = await freePort();
  const serve = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '0.2'], {
    DYN_LOG: 'warn',
    DYN_HTTP_GRACEFUL_SHUTDOWN_TIMEOUT_SECS: '120',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForModel(baseUrl, 'Qwen/Qwen3-0.6B', serve, 60_000);
    const res = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'hi' }], max_tokens: 60, ignore_eos: true, stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    serve.proc.kill('SIGTERM');
    let health = 200;
    while (health === 200) health = (await fetch(`${baseUrl}/health`)).status;
    assert.equal(health, 503);
    assert.equal((await fetch(`${baseUrl}/live`)).status, 200, 'alive while draining');
    let text = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    assert.match(text, /"finish_reason":"length"/);
    assert.match(text, /data: \[DONE\]/);
    assert.equal(await serve.exited, 0);
  } finally {
    await serve.stop();
  }
});
