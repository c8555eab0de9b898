// Two frontends with --router-replica-sync over one in-process discovery and event plane: a session
// bound by one is bound the same way in the other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { startFrontend, startMocker } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { eventually, inProcessConfig } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const logger = createLogger('silent');

test('with --router-replica-sync a session bound by one frontend is bound to the same worker in the other', async () => {
  const frontendArgs = ['frontend', '--namespace', 'replicas', '--http-host', '127.0.0.1', '--http-port', '0', '--router-session-affinity-ttl-secs', '60', '--router-replica-sync'];
  const workers = await startMocker(inProcessConfig(['mocker', '--namespace', 'replicas', '--num-workers', '3', '--speedup-ratio', '100']), logger);
  const [a, b] = [await startFrontend(inProcessConfig(frontendArgs), logger), await startFrontend(inProcessConfig(frontendArgs), logger)];
  try {
    for (const fe of [a, b]) await eventually(() => fe.models.has(MODEL) && fe.models.get(MODEL).router.instanceIds.length === 3, 60_000, 'three workers');
    const affinityOf = (fe: typeof a) => fe.models.get(MODEL).router.affinity!;
    for (const session of ['one', 'two', 'three']) {
      const openai = new OpenAI({ baseURL: `http://127.0.0.1:${a.port}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-dynamo-session-id': session } });
      await openai.completions.create({ model: MODEL, prompt: 'hello', max_tokens: 2 });
      const bound = affinityOf(a).boundWorker(session);
      assert.notEqual(bound, null);
      await eventually(() => affinityOf(b).boundWorker(session) === bound, 10_000, `${session} bound in the replica`);
      assert.equal(b.models.get(MODEL).router.pick({ model: MODEL, token_ids: [1], stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [], routing: { session_id: session } }).id, bound);
    }
  } finally {
    await a.stop();
    await b.stop();
    await workers.stop();
  }
});
