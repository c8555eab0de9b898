// Session affinity through the HTTP API: the official OpenAI client sends the session headers,
// and the router's dispatches (seen on the request-events channel) show where each request went.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import OpenAI from 'openai';
import { dispatchesDuring } from '../support/dispatches.js';
import { serveInjected } from '../support/in-process.js';
import { fetchFor } from '../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';

test('requests of one session reach one worker, streamed or not, whichever header names the session', async () => {
  const { service, baseUrl } = await serveInjected(['--num-workers', '3', '--router-session-affinity-ttl-secs', '60', '--speedup-ratio', '100']);
  const client = (headers: Record<string, string>) => new OpenAI({ baseURL: `${baseUrl}/v1`, fetch: fetchFor(baseUrl), apiKey: 'unused', maxRetries: 0, defaultHeaders: headers });
  try {
    const sessions: Record<string, string>[] = [
      { 'x-dynamo-session-id': 'conversation-1' },
      { 'x-claude-code-session-id': 'cc-session', 'x-claude-code-agent-id': 'cc-agent' },
      { 'thread-id': 'codex-thread' },
      { 'x-session-id': 'opencode-session' },
    ];
    for (const headers of sessions) {
      const openai = client(headers);
      const seen = await dispatchesDuring(async () => {
        for (let turn = 0; turn < 3; turn++) {
          await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: `turn ${turn}` }], max_tokens: 3 });
          const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: `again ${turn}` }], max_tokens: 3, stream: true });
          for await (const _ of stream);
        }
      });
      assert.equal(seen.length, 6);
      assert.equal(new Set(seen).size, 1, `one worker for ${JSON.stringify(headers)}`);
    }
    // Round-robin spreads requests without a session over every worker.
    const free = await dispatchesDuring(async () => {
      for (let i = 0; i < 3; i++) await client({}).completions.create({ model: MODEL, prompt: 'hi', max_tokens: 2 });
    });
    assert.equal(new Set(free).size, 3);
    assert.equal(service.models.get(MODEL).router.affinity!.boundWorker('cc-agent') !== null, true, "Claude Code's agent id wins over its session id");

    await assert.rejects(client({ 'x-dynamo-session-id': 'x'.repeat(257) }).completions.create({ model: MODEL, prompt: 'hi', max_tokens: 2 }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 400);
      assert.match(err.message, /session affinity ID must not exceed 256 bytes/);
      return true;
    });
  } finally {
    await service.stop();
  }
});
