// `--router-min-initial-workers N`: readiness waits for N workers, over a real frontend and real
// mocker workers sharing one in-process discovery (mem) and request plane (inproc).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { startFrontend, startMocker, type FrontendService, type RunningMocker } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { makeClient, unary } from '../frontends/grpc/harness.js';
import { eventually, inProcessConfig } from '../support/in-process.js';
import { freePort } from '../support/processes.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const logger = createLogger('silent');

const mocker = (namespace: string): Promise<RunningMocker> => startMocker(inProcessConfig(['mocker', '--namespace', namespace, '--speedup-ratio', '100']), logger);

async function frontend(namespace: string, minWorkers: number): Promise<FrontendService> {
  return startFrontend(
    inProcessConfig(['frontend', '--namespace', namespace, '--http-host', '127.0.0.1', '--http-port', '0', '--grpc-port', String(await freePort()), '--router-min-initial-workers', String(minWorkers)]),
    logger,
  );
}

test('readiness waits for N workers: /health and /v1/models 503, gRPC ServerReady false, inference 503; then all open', async () => {
  const fe = await frontend('minwait', 2);
  const workers: RunningMocker[] = [];
  const base = `http://127.0.0.1:${fe.port}`;
  const grpcClient = makeClient(fe.grpc!.grpcPort);
  const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'unused', maxRetries: 0 });
  try {
    const ready = async (): Promise<boolean> => (await unary<{ ready: boolean }>(grpcClient, 'ServerReady', {})).ready;
    workers.push(await mocker('minwait'));
    await eventually(() => fe.models.workerCount() === 1, 60_000, 'the first worker');

    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 503);
    assert.match(((await health.json()) as { message: string }).message, /waiting for 2 initial workers \(1 registered\)/);
    assert.equal((await fetch(`${base}/v1/models`)).status, 503);
    assert.equal(await ready(), false);
    await assert.rejects(openai.completions.create({ model: MODEL, prompt: 'hi', max_tokens: 2 }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 503);
      assert.match(err.message, /waiting for 2 initial workers/);
      return true;
    });
    assert.equal((await fetch(`${base}/live`)).status, 200, 'the process is live while not ready');

    workers.push(await mocker('minwait'));
    await eventually(() => fe.models.workerCount() === 2, 60_000, 'the second worker');
    assert.equal((await fetch(`${base}/health`)).status, 200);
    assert.equal(await ready(), true);
    const answer = await openai.completions.create({ model: MODEL, prompt: 'hi', max_tokens: 2 });
    assert.equal(answer.choices.length, 1);

    // Open for good: a worker leaving after startup is routing's concern, not readiness's.
    await workers.pop()!.stop();
    await eventually(() => fe.models.workerCount() === 1, 60_000, 'the worker to leave');
    assert.equal((await fetch(`${base}/health`)).status, 200);
  } finally {
    grpcClient.close();
    await fe.stop();
    for (const w of workers) await w.stop();
  }
});

test('the default 0 is ready with no worker at all', async () => {
  const fe = await frontend('minzero', 0);
  try {
    assert.equal((await fetch(`http://127.0.0.1:${fe.port}/health`)).status, 200);
  } finally {
    await fe.stop();
  }
});
