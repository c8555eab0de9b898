import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import OpenAI from 'openai';
import { BIN, freePort, REPO_ROOT, startProcess } from '../support/processes.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const SECRET_PROMPT = 'my card number is 4111-1111-1111-1111 and the vault code is hunter2-zebra';
const API_KEY = 'sk-live-very-secret-key-0123456789';
const WRONG_KEY = 'sk-live-wrong-key-9876543210';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

async function waitFor(output: () => string, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no '${text}' after ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('JSON logs: request id and trace id on request lines, no prompt text or keys', async () => {
  const port = await freePort();
  const proc = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--api-key', API_KEY], { DYN_LOG: 'info,dynamo_ts::http=debug' });
  try {
    await waitFor(proc.output, 'dynamo-ts serve listening');
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `http://127.0.0.1:${port}/v1`, defaultHeaders: { traceparent: TRACEPARENT }, maxRetries: 0 });
    const done = await client.chat.completions.create(
      { model: MODEL, messages: [{ role: 'user', content: SECRET_PROMPT }], max_tokens: 4 },
      { headers: { 'x-request-id': 'req-logs-1' } },
    );
    assert.ok(done.choices[0]);
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: SECRET_PROMPT }], max_tokens: 4, stream: true });
    for await (const chunk of stream) assert.ok(chunk);
    const intruder = new OpenAI({ apiKey: WRONG_KEY, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    await assert.rejects(intruder.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: SECRET_PROMPT }] }), (err: unknown) => (err as { status?: number }).status === 401);
    await waitFor(proc.output, '"status":401');
  } finally {
    await proc.stop();
  }
  const out = proc.output();
  assert.ok(!out.includes('4111-1111'), 'no prompt text in the logs');
  assert.ok(!out.includes('hunter2'), 'no prompt text in the logs');
  assert.ok(!out.includes(API_KEY) && !out.includes(WRONG_KEY), 'no API key in the logs');
  const lines = out.split('\n').filter((l) => l.trim().length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
  const finished = lines.filter((l) => l.msg === 'request finished' && l.path === '/v1/chat/completions');
  assert.equal(finished.length, 3, out);
  for (const line of finished) {
    assert.equal(line.module, 'http');
    assert.equal(typeof line.request_id, 'string');
  }
  assert.equal(finished.find((l) => l.status === 200 && l.request_id === 'req-logs-1')?.trace_id, TRACE_ID);
  assert.equal(finished.filter((l) => l.trace_id === TRACE_ID).length, 2, 'the streamed request carries the trace id too');
  assert.ok(finished.some((l) => l.status === 401 && l.trace_id === undefined));
  assert.ok(lines.some((l) => l.msg === 'dynamo-ts serve listening' && l.level === 30));
});

/** Runs the CLI to its exit, optionally under a pseudo-terminal (`script` from util-linux). */
function runLogged(env: Record<string, string>, tty: boolean): Promise<string> {
  const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} frontend --discovery-backend etcd`;
  const [cmd, args] = tty ? ['script', ['-qec', cli, '/dev/null']] : [process.execPath, [BIN, 'frontend', '--discovery-backend', 'etcd']];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd as string, args as string[], { cwd: REPO_ROOT, env: { ...process.env, DYN_HTTP_WORKERS: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      // Drop colours and the terminal's carriage returns.
      resolve(out.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, ''));
    });
  });
}

test('readable logs on a terminal, JSON through a pipe, DYN_LOGGING_JSONL forces either', async () => {
  const env = { DYN_LOG: 'info,bogus=debug', ETCD_ENDPOINTS: `http://127.0.0.1:${await freePort()}`, DYN_CONNECT_RETRY_SECS: '0' };
  const warningOf = (out: string) => out.split('\n').find((l) => l.includes("ignoring 'bogus=debug'")) ?? assert.fail(out);

  const piped = warningOf(await runLogged(env, false));
  assert.equal((JSON.parse(piped) as { level: number }).level, 40);

  const onTerminal = warningOf(await runLogged(env, true));
  assert.match(onTerminal, /^\[[\d-]+ [\d:.]+Z\] WARN .*: DYN_LOG: ignoring 'bogus=debug'/);

  const forcedJson = warningOf(await runLogged({ ...env, DYN_LOGGING_JSONL: 'true' }, true));
  assert.doesNotThrow(() => JSON.parse(forcedJson));
  assert.match(warningOf(await runLogged({ ...env, DYN_LOGGING_JSONL: 'false' }, false)), /WARN .*ignoring/);
});
