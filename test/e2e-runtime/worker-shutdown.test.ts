// A worker's SIGTERM under streaming load, with real processes (a frontend and three mockers over
// file discovery and the TCP request plane): the worker leaves discovery at once, lets its streams
// run for DYN_GRACEFUL_SHUTDOWN_GRACE_PERIOD_SECS, and ends those still running with an
// engine-shutdown error that the frontend migrates. No client sees an error or a `cancelled` finish,
// and every text is the one an unbroken run gives.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { RunningProcess } from '../support/processes.js';
import { chatStream, MODEL, startFrontendProcess, startMockerProcess, stopAll, streamsUnderWay, until, waitForModel, type ChatOutcome } from './helpers.js';

let kvRoot: string;
let frontend: { proc: RunningProcess; baseUrl: string };
let env: Record<string, string>;
const workers: RunningProcess[] = [];
// Decode at a tenth of the mocker's pace: a 120-token answer takes several seconds.
const SLOW = ['--speedup-ratio', '0.1'];

before(async () => {
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-shutdown-kv-'));
  env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_EVENT_PLANE: 'zmq', ETCD_LEASE_TTL: '3' };
  frontend = await startFrontendProcess(env, ['--router-mode', 'round-robin', '--migration-limit', '3']);
  // The first drains for 60 s (longer than any stream here), the second for 1 s, the third stays.
  workers.push(
    startMockerProcess({ ...env, DYN_GRACEFUL_SHUTDOWN_GRACE_PERIOD_SECS: '60' }, SLOW),
    startMockerProcess({ ...env, DYN_GRACEFUL_SHUTDOWN_GRACE_PERIOD_SECS: '1' }, SLOW),
    startMockerProcess(env, SLOW),
  );
  await waitForModel(frontend.baseUrl, MODEL, frontend.proc, 120_000);
  await instances(3);
});

after(async () => {
  await stopAll([frontend?.proc, ...workers]);
  rmSync(kvRoot, { recursive: true, force: true });
});

async function instances(count: number): Promise<void> {
  await until(async () => {
    const health = (await (await fetch(`${frontend.baseUrl}/health`)).json()) as { instances?: unknown[] };
    return (health.instances?.length ?? 0) === count;
  }, 120_000, `${count} worker instances`);
}

/** `count` streams; `victim` gets SIGTERM once every stream has output. */
async function sigtermUnderLoad(count: number, maxTokens: number, victim: RunningProcess, seed0: number): Promise<ChatOutcome[]> {
  const { outcomes } = await streamsUnderWay(frontend.baseUrl, count, maxTokens, seed0);
  victim.proc.kill('SIGTERM');
  return outcomes;
}

const chat = (seed: number, maxTokens: number): Promise<ChatOutcome> => chatStream(frontend.baseUrl, seed, maxTokens);

async function migrations(): Promise<number> {
  const metrics = await (await fetch(`${frontend.baseUrl}/metrics`)).text();
  const moved = /model_migration_total\{model="[^"]+",migration_type="ongoing_request"\} (\d+)/.exec(metrics);
  return moved ? Number(moved[1]) : 0;
}

function assertUnbroken(outcomes: ChatOutcome[], expected: ChatOutcome[], maxTokens: number): void {
  for (const [i, e] of expected.entries()) {
    assert.equal(e.error, undefined);
    const o = outcomes[i]!;
    assert.equal(o.error, undefined, `stream ${i}: ${o.error}`);
    assert.equal(o.finish, 'length', `stream ${i}`);
    assert.equal(o.text, e.text, `stream ${i}`);
    assert.equal(o.completionTokens, maxTokens, `stream ${i}`);
  }
}

test('SIGTERM within the grace period: the worker leaves discovery at once, its streams finish on it, new requests go elsewhere', async () => {
  const before = await migrations();
  const victim = workers[0]!;
  const load = sigtermUnderLoad(6, 40, victim, 300);
  // Requests sent while it drains are served by the others.
  await instances(2);
  const during = await Promise.all([1, 2, 3, 4].map((i) => chat(400 + i, 4)));
  for (const d of during) assert.equal(d.error, undefined, d.error);
  const outcomes = await load;
  assert.equal(await victim.exited, 0, victim.output());
  assertUnbroken(outcomes, await Promise.all(outcomes.map((_, i) => chat(300 + i, 40))), 40);
  assert.equal(await migrations(), before, 'nothing had to move');
});

test('SIGTERM past the grace period: the streams still running move to another worker with exact text, none ends as cancelled', async () => {
  const before = await migrations();
  const victim = workers[1]!;
  const outcomes = await sigtermUnderLoad(6, 120, victim, 500);
  assert.equal(await victim.exited, 0, victim.output());
  assert.match(victim.output(), /shutdown grace period over/);
  assertUnbroken(outcomes, await Promise.all(outcomes.map((_, i) => chat(500 + i, 120))), 120);
  assert.ok((await migrations()) > before, 'the streams left on the worker were moved');
});
