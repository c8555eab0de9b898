// Kill -9 under load, with real processes: etcd, two frontends (migration on and off) and three
// mocker processes over the TCP request plane. Streams on the killed worker continue elsewhere with
// the text an unbroken run gives (migration on), or end with one clear error (migration off).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startEtcd, type InfraServer } from '../support/infra-servers.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

let etcd: InfraServer;
let env: Record<string, string>;
let moving: { proc: RunningProcess; baseUrl: string };
let stuck: { proc: RunningProcess; baseUrl: string };
let workers: RunningProcess[] = [];

before(async () => {
  etcd = await startEtcd();
  env = { DYN_DISCOVERY_BACKEND: 'etcd', ETCD_ENDPOINTS: etcd.url, ETCD_LEASE_TTL: '2', DYN_EVENT_PLANE: 'zmq' };
  [moving, stuck] = await Promise.all([
    startFrontendProcess(env, ['--migration-limit', '3']),
    startFrontendProcess(env, ['--migration-limit', '0']),
  ]);
  workers = [0, 1, 2].map(() => startMockerProcess(env));
  await Promise.all([waitForModel(moving.baseUrl, MODEL, moving.proc, 120_000), waitForModel(stuck.baseUrl, MODEL, stuck.proc, 120_000)]);
  await Promise.all([waitForInstances(moving.baseUrl, 3), waitForInstances(stuck.baseUrl, 3)]);
});

/** Until the frontend routes to `count` worker instances (its /health lists them). */
async function waitForInstances(baseUrl: string, count: number): Promise<void> {
  await eventuallyAsync(async () => {
    const health = (await (await fetch(`${baseUrl}/health`)).json()) as { instances?: unknown[] };
    return (health.instances?.length ?? 0) >= count;
  }, `${count} instances at ${baseUrl}`);
}

async function eventuallyAsync(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

after(async () => {
  await stopAll([moving?.proc, stuck?.proc, ...workers]);
  await etcd?.dispose();
});

interface Outcome {
  text: string;
  completionTokens: number | undefined;
  error?: string;
}

async function chat(client: OpenAI, seed: number, onChunk: () => void = () => undefined): Promise<Outcome> {
  let text = '';
  let completionTokens: number | undefined;
  try {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: `story number ${seed}` }],
      seed,
      max_tokens: 120,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      completionTokens ??= chunk.usage?.completion_tokens;
      onChunk();
    }
    return { text, completionTokens };
  } catch (err) {
    return { text, completionTokens, error: (err as Error).message };
  }
}

/** Starts `count` streams, kills one worker once every stream has output, and collects the outcomes. */
async function killUnderLoad(baseUrl: string, count: number, victim: RunningProcess): Promise<Outcome[]> {
  const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'none', maxRetries: 0 });
  let started = 0;
  let killed = false;
  let release!: () => void;
  const allStarted = new Promise<void>((resolve) => (release = resolve));
  const runs = Array.from({ length: count }, (_, i) => {
    let first = true;
    return chat(client, 100 + i, () => {
      if (first) {
        first = false;
        if (++started === count) release();
      }
    });
  });
  await Promise.race([allStarted, Promise.all(runs)]);
  if (!killed) {
    killed = true;
    victim.proc.kill('SIGKILL');
  }
  return Promise.all(runs);
}

async function unbroken(baseUrl: string, count: number): Promise<Outcome[]> {
  const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'none', maxRetries: 0 });
  return Promise.all(Array.from({ length: count }, (_, i) => chat(client, 100 + i)));
}

test('migration on: every stream of the killed worker continues with the unbroken text and usage', async () => {
  const outcomes = await killUnderLoad(moving.baseUrl, 9, workers[0]!);
  const expected = await unbroken(moving.baseUrl, 9);
  for (const [i, e] of expected.entries()) {
    assert.equal(e.error, undefined);
    assert.equal(outcomes[i]!.error, undefined, `stream ${i}: ${outcomes[i]!.error}`);
    assert.equal(outcomes[i]!.text, e.text, `stream ${i}`);
    assert.equal(outcomes[i]!.completionTokens, e.completionTokens, `stream ${i}`);
  }
  const metrics = await (await fetch(`${moving.baseUrl}/metrics`)).text();
  const moved = /model_migration_total\{model="[^"]+",migration_type="ongoing_request"\} (\d+)/.exec(metrics);
  assert.ok(moved && Number(moved[1]) >= 1, 'some streams were moved');
});

test('migration off: only the streams on the killed worker fail, each with one clear error', async () => {
  const outcomes = await killUnderLoad(stuck.baseUrl, 6, workers[1]!);
  const expected = await unbroken(stuck.baseUrl, 6);
  const failed = outcomes.filter((o) => o.error !== undefined);
  assert.ok(failed.length >= 1 && failed.length < 6, `${failed.length} failed`);
  for (const f of failed) assert.match(f.error!, /worker connection lost|closed|unreachable/);
  for (const [i, o] of outcomes.entries()) {
    if (o.error === undefined) assert.equal(o.text, expected[i]!.text, `stream ${i}`);
    else assert.ok(expected[i]!.text.startsWith(o.text), `stream ${i}: what arrived is a prefix of the answer`);
  }
});
