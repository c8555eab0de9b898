// --serve-indexer: another router asks this frontend's KV indexer over the request plane, as
// upstream's remote indexer consumer does.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import OpenAI from 'openai';
import { ConfigError } from '../../src/config/index.js';
import { startFrontend, startMocker } from '../../src/launch/index.js';
import { assertRouterSettings } from '../../src/launch/model-settings.js';
import { createLogger } from '../../src/observability/index.js';
import type { KvRouterPolicy } from '../../src/router/index.js';
import { computeLocalBlockHashes } from '../../src/router/kv/index.js';
import { DistributedRuntime, type EndpointInstance } from '../../src/runtime/index.js';
import { eventually, inProcessConfig } from '../support/in-process.js';
import { discoverInstances, IN_PROCESS_RUNTIME } from '../support/in-process-runtime.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const logger = createLogger('silent');

async function ask(rt: DistributedRuntime, inst: EndpointInstance, request: unknown): Promise<unknown[]> {
  const items: unknown[] = [];
  for await (const item of rt.requestClient.stream(inst, request, { requestId: randomUUID(), signal: new AbortController().signal, exactIntegers: true })) items.push(item);
  return items;
}

test('--serve-indexer needs kv routing', () => {
  assert.throws(() => assertRouterSettings(inProcessConfig(['frontend', '--serve-indexer'])), (err: unknown) =>
    err instanceof ConfigError && err.message === '--serve-indexer requires --router-mode kv (got --router-mode round-robin)');
  assertRouterSettings(inProcessConfig(['frontend', '--serve-indexer', '--router-mode', 'kv']));
});

test('kv_indexer_query answers with the workers holding a prompt\'s blocks, on the workers\' component', async () => {
  const workers = await startMocker(inProcessConfig(['mocker', '--namespace', 'served', '--speedup-ratio', '100', '--block-size', '16']), logger);
  const fe = await startFrontend(inProcessConfig(['frontend', '--namespace', 'served', '--http-host', '127.0.0.1', '--http-port', '0', '--router-mode', 'kv', '--serve-indexer']), logger);
  const other = await DistributedRuntime.create(IN_PROCESS_RUNTIME);
  try {
    await eventually(() => fe.models.has(MODEL) && fe.models.get(MODEL).router.instanceIds.length === 1, 60_000, 'the worker');
    const prompt = Array.from({ length: 48 }, (_, i) => 1000 + i);
    const openai = new OpenAI({ baseURL: `http://127.0.0.1:${fe.port}/v1`, apiKey: 'unused', maxRetries: 0 });
    await openai.completions.create({ model: MODEL, prompt, max_tokens: 2 });
    const policy = (fe.models.get(MODEL).router.policy as KvRouterPolicy).kvEvents;
    const hashes = computeLocalBlockHashes(prompt, 16);
    await eventually(() => policy.tieredMatches(hashes, true).device.length === 1, 10_000, 'the KV events of the request');

    const instances = await discoverInstances(other, 'served', 2);
    const indexer = instances.find((i) => i.endpoint === 'kv_indexer_query');
    assert.ok(indexer, 'served on the workers\' namespace');
    assert.equal(indexer.component, 'backend', 'and component');
    const worker = workers.runtimes[0]!.instanceId;
    const [answer] = await ask(other, indexer, { model_name: MODEL, block_hashes: hashes, device_only: false });
    assert.deepEqual(answer, { data: { TieredScores: { device: { scores: [[{ worker_id: worker, dp_rank: 0 }, 3]], frequencies: [] }, lower_tier: [] } } });
    const [partial] = await ask(other, indexer, { model_name: MODEL, block_hashes: [hashes[0], 12345n], device_only: true });
    assert.deepEqual((partial as { data: { TieredScores: { device: { scores: unknown } } } }).data.TieredScores.device.scores, [[{ worker_id: worker, dp_rank: 0 }, 1]]);
    assert.deepEqual(await ask(other, indexer, { model_name: 'other', block_hashes: [] }), [{ data: { Error: 'served indexer model other is not registered' } }]);
    assert.deepEqual(await ask(other, indexer, { model_name: MODEL, block_hashes: ['x'] }), [{ data: { Error: 'block_hashes must be a list of u64 block hashes' } }]);
  } finally {
    await other.shutdown();
    await fe.stop();
    await workers.stop();
  }
});
