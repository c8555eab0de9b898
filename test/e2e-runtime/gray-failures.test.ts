// A worker that stops answering without closing anything, with real processes: three mocker
// processes and a frontend (`--migration-limit 3`, the default silence bounds) over file discovery,
// the TCP request plane and ZMQ events. One mocker is stopped with SIGSTOP under streaming load:
// every stream still ends with the text an unbroken run gives, none waits past the bound, new
// requests avoid the stopped worker, and after SIGCONT it answers its probe and rejoins.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, until, waitForModel } from './helpers.js';

/**
 * The longest a stream that has started answering may wait with the default bounds: 10 × its
 * worker's pace within 1.5 s…30 s (here the floor: the mocker's gaps are milliseconds), then a 1 s
 * ping; plus slack for the re-sent request's first token on a loaded machine.
 */
const BOUND_MS = 1_500 + 1_000 + 2_000;
/** Longer than the bound, so a stream left waiting on the stopped worker would show. */
const STOPPED_MS = 12_000;
const STREAMS = 24;

let root: string;
let frontend: { proc: RunningProcess; baseUrl: string };
let workers: RunningProcess[] = [];

before(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'dynamo-gray-'));
  // A lease that outlives the stop: the stopped worker stays registered, as a frozen host would.
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: root, ETCD_LEASE_TTL: '60' };
  frontend = await startFrontendProcess({ ...env, DYN_LOG: 'warn,discovery=info' }, ['--migration-limit', '3']);
  workers = [0, 1, 2].map(() => startMockerProcess(env));
  await waitForModel(frontend.baseUrl, MODEL, frontend.proc, 120_000);
  await until(async () => (await gauge('model_instances')) === 3, 60_000, 'three worker instances');
});

after(async () => {
  for (const w of workers) w.proc.kill('SIGCONT');
  await stopAll([frontend?.proc, ...workers]);
  rmSync(root, { recursive: true, force: true });
});

async function metrics(): Promise<string> {
  return (await fetch(`${frontend.baseUrl}/metrics`)).text();
}

async function gauge(name: string): Promise<number> {
  const line = new RegExp(`^dynamo_frontend_${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(await metrics());
  return line ? Number(line[1]) : NaN;
}

async function migrations(type: 'new_request' | 'ongoing_request'): Promise<number> {
  const line = new RegExp(`model_migration_total\\{model="[^"]+",migration_type="${type}"\\} (\\d+)`).exec(await metrics());
  return line ? Number(line[1]) : 0;
}

interface Outcome {
  text: string;
  completionTokens?: number;
  /** The longest wait for the next chunk, the first one included. */
  maxWaitMs: number;
  error?: string;
}

/** A streamed chat answer read to its end, with the longest wait between chunks. */
async function chat(seed: number, onChunk: () => void = () => undefined): Promise<Outcome> {
  const out: Outcome = { text: '', maxWaitMs: 0 };
  let last = performance.now();
  try {
    const res = await fetch(`${frontend.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: `story number ${seed}` }],
        seed,
        max_tokens: 200,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true },
      }),
      signal: AbortSignal.timeout(60_000),
    });
    let pending = '';
    const decoder = new TextDecoder();
    for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
      const now = performance.now();
      out.maxWaitMs = Math.max(out.maxWaitMs, now - last);
      last = now;
      pending += decoder.decode(bytes, { stream: true });
      let end: number;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const data = event.startsWith('data: ') ? event.slice(6) : '';
        if (!data || data === '[DONE]') continue;
        const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[]; usage?: { completion_tokens: number }; error?: { message: string } };
        if (chunk.error) out.error = chunk.error.message;
        out.text += chunk.choices?.[0]?.delta?.content ?? '';
        out.completionTokens ??= chunk.usage?.completion_tokens;
        onChunk();
      }
    }
  } catch (err) {
    out.error = (err as Error).message;
  }
  return out;
}

test('SIGSTOP of a worker under streaming load: every stream completes exactly within the bound, and the worker rejoins after SIGCONT', async () => {
  const victim = workers[0]!;
  const movedBefore = await migrations('ongoing_request');
  // Every stream has output before the stop, so some are on the stopped worker mid-answer.
  let started = 0;
  let release!: () => void;
  const allStarted = new Promise<void>((resolve) => (release = resolve));
  const runs = Array.from({ length: STREAMS }, (_, i) => {
    let first = true;
    return chat(100 + i, () => {
      if (first && (first = false, ++started === STREAMS)) release();
    });
  });
  await Promise.race([allStarted, Promise.all(runs)]);
  victim.proc.kill('SIGSTOP');
  const stoppedAt = Date.now();
  const downLine = (): boolean => frontend.proc.output().includes('worker instance marked down: it leaves routing until it is back (unresponsive');
  await until(downLine, BOUND_MS, 'the frontend logs the stopped worker as unresponsive');
  const outcomes = await Promise.all(runs);

  // New requests while it is stopped: none is sent to it (no retry away from it is needed).
  const retriedBefore = await migrations('new_request');
  const fresh = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => chat(200 + i)));
  assert.equal(await migrations('new_request'), retriedBefore, 'no new request went to the stopped worker');
  assert.equal(await gauge('model_down_instances'), 1);

  await new Promise((r) => setTimeout(r, Math.max(0, STOPPED_MS - (Date.now() - stoppedAt))));
  victim.proc.kill('SIGCONT');
  await until(async () => (await gauge('model_down_instances')) === 0, 30_000, 'the worker back in routing after SIGCONT');
  assert.match(frontend.proc.output(), /worker instance back in routing after [\d.]+ s down \(probe succeeded\)/);
  assert.equal(frontend.proc.output().split('worker instance marked down').length - 1, 1, 'the loss is logged once');

  // What an unbroken run answers, every worker serving again.
  const expected = await Promise.all(Array.from({ length: STREAMS }, (_, i) => chat(100 + i)));
  const expectedFresh = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => chat(200 + i)));
  for (const [i, e] of [...expected, ...expectedFresh].entries()) assert.equal(e.error, undefined, `unbroken run ${i}: ${e.error}`);
  for (const [i, o] of outcomes.entries()) {
    assert.equal(o.error, undefined, `stream ${i}: ${o.error}`);
    assert.equal(o.text, expected[i]!.text, `stream ${i}: no token lost or repeated`);
    assert.equal(o.completionTokens, expected[i]!.completionTokens, `stream ${i}`);
    assert.ok(o.maxWaitMs < BOUND_MS, `stream ${i} waited ${Math.round(o.maxWaitMs)} ms`);
  }
  for (const [i, o] of fresh.entries()) {
    assert.equal(o.error, undefined, `new request ${i}: ${o.error}`);
    assert.equal(o.text, expectedFresh[i]!.text, `new request ${i}`);
  }
  assert.ok((await migrations('ongoing_request')) > movedBefore, 'the stopped worker\'s streams moved mid-answer');
});

/** Before a first token the bound is 3 s (and the short prompt at 5000 tokens/s), then the 1 s ping; plus slack. */
const FIRST_TOKEN_BOUND_MS = 3_000 + 1_000 + 2_000;

test('requests routed to a worker stopped while idle get their first token from another worker within the first-token bound', async () => {
  const victim = workers[1]!;
  victim.proc.kill('SIGSTOP');
  const retriedBefore = await migrations('new_request');
  // Round robin over three workers: some of these go to the stopped one before anything is known.
  const outcomes = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => chat(300 + i)));
  assert.ok((await migrations('new_request')) > retriedBefore, 'some requests were retried away from the stopped worker');
  victim.proc.kill('SIGCONT');
  await until(async () => (await gauge('model_down_instances')) === 0, 30_000, 'the worker back in routing after SIGCONT');
  const expected = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => chat(300 + i)));
  for (const [i, o] of outcomes.entries()) {
    assert.equal(o.error, undefined, `request ${i}: ${o.error}`);
    assert.equal(o.text, expected[i]!.text, `request ${i}`);
    assert.ok(o.maxWaitMs < FIRST_TOKEN_BOUND_MS, `request ${i} waited ${Math.round(o.maxWaitMs)} ms`);
  }
});
