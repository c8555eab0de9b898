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
import OpenAI from 'openai';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, until, waitForModel } from './helpers.js';

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

interface Outcome {
  text: string;
  completionTokens?: number;
  error?: string;
}

async function chat(seed: number, onChunk: () => void = () => undefined): Promise<Outcome> {
  const client = new OpenAI({ baseURL: `${frontend.baseUrl}/v1`, apiKey: 'none', maxRetries: 0, timeout: 600_000 });
  const outcome: Outcome = { text: '' };
  try {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: `fable number ${seed}` }],
      seed,
      max_tokens: 100,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    for await (const chunk of stream) {
      outcome.text += chunk.choices[0]?.delta.content ?? '';
      outcome.completionTokens ??= chunk.usage?.completion_tokens;
      onChunk();
    }
  } catch (err) {
    outcome.error = (err as Error).message;
  }
  return outcome;
}

test('a stopped worker whose lease runs out: its streams move as soon as discovery drops it, with exact text', async () => {
  const victim = workers[0]!;
  const count = 6;
  let started = 0;
  let release!: () => void;
  const allStarted = new Promise<void>((resolve) => (release = resolve));
  const runs = Array.from({ length: count }, (_, i) => {
    let first = true;
    return chat(700 + i, () => {
      if (!first) return;
      first = false;
      if (++started === count) release();
    });
  });
  await Promise.race([allStarted, Promise.all(runs)]);
  victim.proc.kill('SIGSTOP');
  // The silence bounds (4 minutes) and the stream timeout (5) are far off: only the departure ends the wait.
  let timer: NodeJS.Timeout | undefined;
  const outcomes = await Promise.race([
    Promise.all(runs),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('streams of the departed worker were left hanging')), 120_000))),
  ]);
  clearTimeout(timer);
  const expected = await Promise.all(outcomes.map((_, i) => chat(700 + i)));
  for (const [i, e] of expected.entries()) {
    assert.equal(e.error, undefined);
    assert.equal(outcomes[i]!.error, undefined, `stream ${i}: ${outcomes[i]!.error}`);
    assert.equal(outcomes[i]!.text, e.text, `stream ${i}`);
    assert.equal(outcomes[i]!.completionTokens, 100, `stream ${i}`);
  }
  assert.match(frontend.proc.output(), /left discovery and does not answer/);
});
