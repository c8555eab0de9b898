// --use-remote-indexer: a frontend that keeps no indexer of its own routes on the overlaps another
// frontend's served indexer (--serve-indexer) reports, and on load alone when none answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { ConfigError } from '../../src/config/index.js';
import { startFrontend, startMocker } from '../../src/launch/index.js';
import { assertRouterSettings } from '../../src/launch/model-settings.js';
import { createLogger } from '../../src/observability/index.js';
import type { KvRouterPolicy } from '../../src/router/index.js';
import { computeLocalBlockHashes } from '../../src/router/kv/index.js';
import { DistributedRuntime } from '../../src/runtime/index.js';
import { capturingLogger } from '../support/captured-logs.js';
import { eventually, inProcessConfig } from '../support/in-process.js';
import { discoverInstances, IN_PROCESS_RUNTIME } from '../support/in-process-runtime.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const NS = 'remoteix';
const UNAVAILABLE = 'remote KV indexer unavailable: routing on load alone until it answers';

test('--use-remote-indexer needs kv routing and excludes --serve-indexer', () => {
  assert.throws(() => assertRouterSettings(inProcessConfig(['frontend', '--use-remote-indexer'])), (err: unknown) =>
    err instanceof ConfigError && err.message === '--use-remote-indexer requires --router-mode kv (got --router-mode round-robin)');
  assert.throws(() => assertRouterSettings(inProcessConfig(['frontend', '--router-mode', 'kv', '--serve-indexer', '--use-remote-indexer'])), (err: unknown) =>
    err instanceof ConfigError && err.message === '--serve-indexer and --use-remote-indexer are mutually exclusive');
  assertRouterSettings(inProcessConfig(['frontend', '--router-mode', 'kv', '--use-remote-indexer']));
  assertRouterSettings(inProcessConfig(['frontend', '--router-mode', 'kv', '--no-use-remote-indexer', '--serve-indexer']));
});

test('a consumer routes a repeated prompt to the worker the served indexer names, and on load alone once it is gone', async () => {
  const warnings: Record<string, unknown>[] = [];
  const frontendArgs = ['frontend', '--namespace', NS, '--http-host', '127.0.0.1', '--http-port', '0', '--router-mode', 'kv'];
  const workers = await startMocker(inProcessConfig(['mocker', '--namespace', NS, '--num-workers', '2', '--speedup-ratio', '100', '--block-size', '16']), createLogger('silent'));
  const server = await startFrontend(inProcessConfig([...frontendArgs, '--serve-indexer']), createLogger('silent'));
  const consumer = await startFrontend(inProcessConfig([...frontendArgs, '--use-remote-indexer']), capturingLogger('warn', warnings));
  let serverStopped = false;
  const watcher = await DistributedRuntime.create(IN_PROCESS_RUNTIME);
  try {
    for (const fe of [server, consumer]) await eventually(() => fe.models.has(MODEL) && fe.models.get(MODEL).router.instanceIds.length === 2, 60_000, 'both workers');
    // Two workers' generate endpoints and the served indexer.
    await discoverInstances(watcher, NS, 3);
    const prompt = Array.from({ length: 64 }, (_, i) => 2000 + i);
    const hashes = computeLocalBlockHashes(prompt, 16);
    const ask = (port: number) => new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0 }).completions.create({ model: MODEL, prompt, max_tokens: 2 });

    await ask(server.port);
    const served = (server.models.get(MODEL).router.policy as KvRouterPolicy).kvEvents;
    await eventually(() => served.tieredMatches(hashes, true).device.length === 1, 10_000, 'the KV events of the first request');
    const holder = served.tieredMatches(hashes, true).device[0]!.workerId;

    const policy = consumer.models.get(MODEL).router.policy as KvRouterPolicy;
    const answer = await ask(consumer.port);
    assert.ok(answer.choices[0]!.text.length > 0);
    assert.deepEqual(policy.lastDecision && { worker: policy.lastDecision.workerId, overlap: policy.lastDecision.overlapBlocks }, { worker: holder, overlap: 4 });
    assert.equal(policy.kvEvents.appliesEvents, false, 'the consumer applies no KV events');
    assert.deepEqual(policy.tieredMatches(hashes, false).device, [], 'and holds no blocks of its own');

    await server.stop();
    serverStopped = true;
    for (let i = 0; i < 3; i++) {
      const again = await ask(consumer.port);
      assert.ok(again.choices[0]!.text.length > 0, 'answered on load alone');
      assert.equal(policy.lastDecision?.overlapBlocks, 0);
    }
    assert.equal(warnings.filter((w) => w.msg === UNAVAILABLE).length, 1, 'warned once, not per request');
    assert.equal(warnings.find((w) => w.msg === UNAVAILABLE)?.model, MODEL);
  } finally {
    await watcher.shutdown();
    await consumer.stop();
    if (!serverStopped) await server.stop();
    await workers.stop();
  }
});
