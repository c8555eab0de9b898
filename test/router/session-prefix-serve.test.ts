// --enable-session-prefix-index through the HTTP API: a session's requests, named by
// x-dynamo-session-id, leave that session's lineage in the kv router's index, on the worker that
// served them, once the worker's KV events have reported the prompt's blocks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import type { KvRouterPolicy } from '../../src/router/index.js';
import { serveInjected } from '../support/in-process.js';
import { fetchFor } from '../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';

test('a session routed twice over the same prompt has a frontier on its worker; a request without a session adds none', async () => {
  const { service, baseUrl } = await serveInjected(['--num-workers', '2', '--router-mode', 'kv', '--enable-session-prefix-index', '--speedup-ratio', '100']);
  const client = (headers: Record<string, string>) => new OpenAI({ baseURL: `${baseUrl}/v1`, fetch: fetchFor(baseUrl), apiKey: 'unused', maxRetries: 0, defaultHeaders: headers });
  try {
    const policy = service.models.get(MODEL).router.policy as KvRouterPolicy;
    const index = policy.sessionPrefixIndex!;
    const content = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    await client({}).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: 2 });
    const openai = client({ 'x-dynamo-session-id': 'conversation-1' });
    // The first turn may reach its worker before that worker's KV events report the prompt's blocks;
    // a later turn over the same prompt finds them cached.
    for (let turn = 0; turn < 20 && index.getSessionFrontiers('conversation-1').length === 0; turn++) {
      await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: 2 });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const frontiers = index.getSessionFrontiers('conversation-1');
    assert.equal(frontiers.length, 1);
    assert.equal(policy.lastDecision!.workerId, frontiers[0]!.worker.workerId, 'the frontier is on the worker that served the session');
    const answer = index.getSessionBlockLineage('conversation-1', frontiers[0]!.worker);
    assert.ok('lineages' in answer && answer.lineages.length === 1 && answer.lineages[0]!.length >= 1);
    assert.equal(index.sessionCount, 1, 'the request without a session recorded nothing');
  } finally {
    await service.stop();
  }
});
