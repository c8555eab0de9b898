// The policy class header: `x-dynamo-meta-policy-class` (trimmed, the first of repeated values)
// reaches the engine request's routing, where the kv router's policy classes read it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { HfTokenizer, Preprocessor, routingFromHeaders } from '../../../src/pipeline/preprocess/index.js';

test('x-dynamo-meta-policy-class sets the request routing policy class; without it there is none', async () => {
  const headers: Record<string, string | string[]> = { 'x-dynamo-meta-policy-class': [' latency ', 'throughput'] };
  const routing = routingFromHeaders((name) => headers[name]);
  assert.equal(routing.policy_class, 'latency');
  const card = loadDefaultModelCard();
  const pre = new Preprocessor(card, new HfTokenizer(card.tokenizerJsonPath));
  const body = pre.validateChat({ model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal((await pre.preprocessChat(body, routing)).request.routing?.policy_class, 'latency');
  const plain = await pre.preprocessChat(body, routingFromHeaders((name) => (name === 'x-dynamo-session-id' ? 's1' : undefined)));
  assert.equal(plain.request.routing?.session_id, 's1');
  assert.equal('policy_class' in plain.request.routing!, false);
});
