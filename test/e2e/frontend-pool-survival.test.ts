// A pool that survives any one process: `dynamo-ts frontend --http-workers 2` in front of a mocker
// process (file discovery, TCP request plane, ZMQ events). kill -9 of a pool process under
// streaming load: requests sent right after it settle at once, served by the other process or
// refused, none left waiting for the client's timeout. kill -9 of the primary: the streams on its
// processes complete, the processes accept new connections themselves, and SIGTERM stops them,
// leaving the port free. A `serve` pool's processes, whose engines ran in the primary, drain and exit.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { alive, freePort, startProcess, type RunningProcess } from '../support/processes.js';
import { jsonLogLines, type LogLine } from '../support/json-log.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const READY_MS = 180_000;
/** Generous: a request that settles later than this waited for something that never came. */
const SETTLE_MS = 10_000;
const STREAM_TOKENS = 60;

let dir: string;
let port: number;
let mocker: RunningProcess;
let pool: RunningProcess;

const logLines = (): LogLine[] => jsonLogLines(pool);

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = READY_MS, proc = pool): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}:\n${proc.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Outcome {
  status?: number;
  /** Completion tokens the final usage chunk reported (streams), or the response's usage. */
  tokens?: number;
  error?: string;
  ms: number;
  endedAt: number;
}

/** A request on a connection of its own; `onFirstByte` when the response starts. */
function post(body: object, onFirstByte?: () => void): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const settle = (o: Omit<Outcome, 'ms' | 'endedAt'>): void => resolve({ ...o, ms: Date.now() - started, endedAt: Date.now() });
    const path = (body as { messages?: unknown }).messages ? '/v1/chat/completions' : '/v1/completions';
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (!text) onFirstByte?.();
        text += chunk;
      });
      res.on('end', () => {
        const usage = [...text.matchAll(/"completion_tokens":(\d+)/g)].at(-1);
        const streamed = text.includes('data: [DONE]');
        const complete = !(body as { stream?: boolean }).stream || streamed;
        settle({ status: res.statusCode, tokens: usage ? Number(usage[1]) : undefined, ...(complete ? {} : { error: 'stream ended without [DONE]' }) });
      });
      res.on('error', (err) => settle({ status: res.statusCode, error: err.message }));
    });
    req.on('error', (err) => settle({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    // The client's own bound: far past SETTLE_MS, so a hang shows as a slow outcome, not a stuck test.
    req.setTimeout(60_000, () => req.destroy(new Error('client timeout')));
    req.end(JSON.stringify(body));
  });
}

function stream(seed: number, onFirstByte: () => void): Promise<Outcome> {
  return post(
    {
      model: MODEL,
      messages: [{ role: 'user', content: `story ${seed}` }],
      max_tokens: STREAM_TOKENS,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    },
    onFirstByte,
  );
}

const unary = (): Promise<Outcome> => post({ model: MODEL, prompt: 'still there?', max_tokens: 2 });

/** `count` streams, resolved once each has its first bytes; `done` settles with their outcomes. */
async function streamsUnderway(count: number): Promise<{ done: Promise<Outcome[]> }> {
  let started = 0;
  let allStarted!: () => void;
  const underway = new Promise<void>((resolve) => (allStarted = resolve));
  const done = Promise.all(
    Array.from({ length: count }, (_, i) =>
      stream(i, () => {
        if (++started === count) allStarted();
      }),
    ),
  );
  await underway;
  return { done };
}

const poolPids = (): number[] => logLines().find((l) => l.msg === 'dynamo-ts frontend processes listening')!.pids as number[];

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pool-survival-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: dir };
  port = await freePort();
  mocker = startProcess(['mocker', '--speedup-ratio', '2'], { ...env, DYN_LOG: 'warn', DYN_TCP_RPC_HOST: '127.0.0.1' });
  pool = startProcess(['frontend', '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', '2'], {
    ...env,
    DYN_LOGGING_JSONL: 'true',
    DYN_LOG: 'info',
  });
  await until('the pool listening', () => logLines().some((l) => l.msg === 'dynamo-ts frontend processes listening'));
  // Each process finds the model on its own.
  await until('the model in both processes', () => new Set(logLines().filter((l) => l.msg === 'model discovered').map((l) => l.frontend_process)).size === 2);
});

after(async () => {
  for (const pid of logLines().flatMap((l) => [l.pid, ...((l.pids as number[] | undefined) ?? [])])) {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  await pool?.stop(3000);
  await mocker?.stop(3000);
  rmSync(dir, { recursive: true, force: true });
});

test('kill -9 of a pool process under streaming load: requests sent right after it settle at once', async () => {
  const victim = poolPids()[0]!;
  const streams = await streamsUnderway(8);
  process.kill(victim, 'SIGKILL');
  const killedAt = Date.now();
  await new Promise((r) => setTimeout(r, 20));
  const after = await Promise.all(Array.from({ length: 6 }, unary));
  const outcomes = await streams.done;
  for (const o of after) assert.ok(o.ms < SETTLE_MS, `a request sent after the kill waited ${o.ms} ms: ${JSON.stringify(o)}`);
  assert.ok(
    after.some((o) => o.status === 200 && o.tokens === 2),
    `the other process served: ${JSON.stringify(after)}`,
  );
  for (const o of after) assert.ok(o.status === 200 || o.error !== undefined, JSON.stringify(o));
  // Streams on the survivor complete; those on the killed process end with an error the client sees at once.
  const completed = outcomes.filter((o) => o.status === 200 && o.tokens === STREAM_TOKENS && o.error === undefined);
  assert.ok(completed.length > 0, JSON.stringify(outcomes));
  for (const o of outcomes.filter((o) => !completed.includes(o))) {
    assert.ok(o.error !== undefined && o.endedAt - killedAt < SETTLE_MS, `a cut stream: ${JSON.stringify(o)}`);
  }
  // The replacement takes connections once it serves the model its sibling serves: no 404 after this.
  await until('the replacement', () => logLines().some((l) => l.msg === 'frontend process replaced and listening'));
});

test('kill -9 of the primary under streaming load: streams complete, the processes accept new connections, SIGTERM stops them', async () => {
  const primary = pool.proc.pid!;
  const processes = [...new Set(logLines().filter((l) => l.msg === 'dynamo-ts frontend listening').map((l) => l.pid))].filter(alive);
  assert.equal(processes.length, 2, 'two pool processes running');
  const streams = await streamsUnderway(8);
  process.kill(primary, 'SIGKILL');
  const outcomes = await streams.done;
  for (const o of outcomes) assert.deepEqual({ status: o.status, tokens: o.tokens, error: o.error }, { status: 200, tokens: STREAM_TOKENS, error: undefined });
  await until('both processes on their own', () => logLines().filter((l) => l.msg.startsWith("the pool's primary is gone: this process serves on")).length === 2, SETTLE_MS);
  // New connections, each its own: the port is still served.
  for (let i = 0; i < 8; i++) {
    const o = await unary();
    assert.deepEqual({ status: o.status, tokens: o.tokens }, { status: 200, tokens: 2 }, JSON.stringify(o));
  }
  // A scrape is answered without the primary that combined them: that process's own metrics.
  const scrape = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(SETTLE_MS) });
  assert.equal(scrape.status, 200);
  assert.match(await scrape.text(), /^dynamo_frontend_requests_total\{/m);
  for (const pid of processes) process.kill(pid, 'SIGTERM');
  await until('the processes gone after SIGTERM', () => !processes.some(alive), 60_000);
  // Nothing holds the port any more.
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
});

test("kill -9 of a serve pool's primary: its engines went with it, so its processes drain and exit by themselves", async () => {
  const servePort = await freePort();
  const serve = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(servePort), '--http-workers', '2', '--speedup-ratio', '100'], {
    DYN_LOGGING_JSONL: 'true',
    DYN_LOG: 'info',
  });
  const lines = (): LogLine[] => jsonLogLines(serve);
  try {
    await until(
      'the serve pool listening',
      () => {
        assert.equal(serve.proc.exitCode, null, serve.output());
        return lines().some((l) => l.msg === 'dynamo-ts serve listening');
      },
      READY_MS,
      serve,
    );
    const processes = lines().find((l) => l.msg === 'dynamo-ts serve listening')!.pids as number[];
    process.kill(serve.proc.pid!, 'SIGKILL');
    await until('the processes gone by themselves', () => !processes.some(alive), 60_000, serve);
    assert.equal(lines().filter((l) => l.msg.startsWith("the pool's primary is gone, and the engines it ran with it")).length, 2, serve.output());
  } finally {
    for (const pid of lines().flatMap((l) => [l.pid, ...((l.pids as number[] | undefined) ?? [])])) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});
