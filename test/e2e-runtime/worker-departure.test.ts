// A worker that leaves discovery while its streams are in flight, with real processes (a frontend
// and two mockers over file discovery and the TCP request plane): the worker is stopped (SIGSTOP),
// so it closes nothing and its lease runs out. The frontend pings it at its old address as soon as
// discovery drops it and, unanswered, moves its streams at once, long before their silence bounds
// (set to minutes here) would have: every stream ends with the text an unbroken run gives.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { RunningProcess } from '../support/processes.js';
import { chatStream, MODEL, startFrontendProcess, startMockerProcess, stopAll, streamsUnderWay, until, waitForModel } from './helpers.js';

let kvRoot: string;
let frontend: { proc: RunningProcess; baseUrl: string };
const workers: RunningProcess[] = [];

before(async () => {
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-departure-kv-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_EVENT_PLANE: 'zmq', ETCD_LEASE_TTL: '2' };
  const patient = ['--worker-silence-first-token-secs', '240', '--worker-silence-floor-secs', '240', '--worker-silence-ceiling-secs', '600'];
  frontend = await startFrontendProcess(env, ['--router-mode', 'round-robin', '--migration-limit', '3', ...patient]);
  workers.push(startMockerProcess(env, ['--speedup-ratio', '0.1']), startMockerProcess(env, ['--speedup-ratio', '0.1']));
  await waitForModel(frontend.baseUrl, MODEL, frontend.proc, 120_000);
  await until(async () => {
    const health = (await (await fetch(`${frontend.baseUrl}/health`)).json()) as { instances?: unknown[] };
    return (health.instances?.length ?? 0) === 2;
  }, 120_000, 'two worker instances');
});

after(async () => {
  workers[0]?.proc.kill('SIGCONT');
  await stopAll([frontend?.proc, ...workers]);
  rmSync(kvRoot, { recursive: true, force: true });
});

test('a stopped worker whose lease runs out: its streams move as soon as discovery drops it, with exact text', async () => {
  const victim = workers[0]!;
  const { outcomes: runs } = await streamsUnderWay(frontend.baseUrl, 6, 100, 700);
  victim.proc.kill('SIGSTOP');
  // The silence bounds (4 minutes) and the stream timeout (5) are far off: only the departure ends the wait.
  let timer: NodeJS.Timeout | undefined;
  const outcomes = await Promise.race([
    runs,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('streams of the departed worker were left hanging')), 120_000))),
  ]);
  clearTimeout(timer);
  const expected = await Promise.all(outcomes.map((_, i) => chatStream(frontend.baseUrl, 700 + i, 100)));
  for (const [i, e] of expected.entries()) {
    assert.equal(e.error, undefined);
    assert.equal(outcomes[i]!.error, undefined, `stream ${i}: ${outcomes[i]!.error}`);
    assert.equal(outcomes[i]!.text, e.text, `stream ${i}`);
    assert.equal(outcomes[i]!.completionTokens, 100, `stream ${i}`);
  }
  assert.match(frontend.proc.output(), /left discovery and does not answer/);
});
