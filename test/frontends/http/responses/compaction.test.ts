// POST /v1/responses/compact through the openai SDK: the conversation's user messages and one
// compaction item whose summary the model wrote; the item, sent back as input, reaches the model as
// the summary; another service's compaction item is a 400.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { serveInjected } from '../../../support/in-process.js';
import { fetchFor } from '../../../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';
let server: Awaited<ReturnType<typeof serveInjected>>;
let openai: OpenAI;

before(async () => {
  // The mocker echoes the last user turn: here the request for a summary, which stands in for one.
  server = await serveInjected(['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000']);
  openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, fetch: fetchFor(server.baseUrl), apiKey: 'unused', maxRetries: 0 });
});
after(() => server.service.stop());

const CONVERSATION = [
  { role: 'user' as const, content: 'Rename the module to parser.ts.' },
  { role: 'assistant' as const, content: 'Renamed.' },
  { role: 'user' as const, content: 'Now update the imports.' },
];

test('the compacted output is the user messages and one compaction item the model wrote', async () => {
  const compacted = await openai.responses.compact({ model: MODEL, input: CONVERSATION });
  assert.equal(compacted.object, 'response.compaction');
  const items = compacted.output as unknown as Record<string, unknown>[];
  assert.deepEqual(
    items.slice(0, -1).map((item) => [item.type, item.role, (item.content as { text: string }[])[0]!.text]),
    [
      ['message', 'user', 'Rename the module to parser.ts.'],
      ['message', 'user', 'Now update the imports.'],
    ],
  );
  const last = items[items.length - 1]!;
  assert.equal(last.type, 'compaction');
  assert.match(String(last.encrypted_content), /^dyn1\./);
  const summary = JSON.parse(Buffer.from(String(last.encrypted_content).slice(5), 'base64url').toString()) as { summary: string };
  assert.match(summary.summary, /summary of the conversation so far/);
  assert.ok(compacted.usage.output_tokens > 0);
});

test('sent back, the compaction item reaches the model as the summary; a foreign one is a 400', async () => {
  const compacted = await openai.responses.compact({ model: MODEL, input: CONVERSATION });
  const item = compacted.output[compacted.output.length - 1] as unknown as OpenAI.Responses.ResponseInputItem;
  const next = { role: 'user' as const, content: 'Next step.' };
  const response = await openai.responses.create({ model: MODEL, input: [item, next] });
  assert.equal(response.output_text, 'Next step.');
  const withSummary = await openai.responses.inputTokens.count({ model: MODEL, input: [item, next] });
  const without = await openai.responses.inputTokens.count({ model: MODEL, input: [next] });
  assert.ok(withSummary.input_tokens > without.input_tokens + 20, 'the summary is in the prompt');
  await assert.rejects(
    openai.responses.create({ model: MODEL, input: [{ type: 'compaction', encrypted_content: 'gAAAA-opaque' } as never, next] }),
    (err: unknown) => err instanceof OpenAI.BadRequestError && /was not made by this gateway/.test(err.message),
  );
});
