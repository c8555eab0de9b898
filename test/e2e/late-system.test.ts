// A system message mid-conversation, as Claude Code sends one over the Messages API: rendered where
// it stands by a template that takes it (Qwen3's), folded into the leading system message for a
// template that refuses it (Qwen3.5's, the Qwen3-Coder style, raises "System message must be at
// the beginning"), so the request is served, not refused; chat keeps the template's verdict.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldLateSystemMessages } from '../../src/pipeline/preprocess/late-system.js';
import { postJson, serveInProcess } from '../support/in-process.js';
import { modelFolderWithTemplate } from '../support/model-folders.js';

/** Qwen3.5's chat template takes system messages first only (the Qwen3-Coder style). */
const qwen35Folder = (): string => modelFolderWithTemplate('Qwen/Qwen3.5-4B', 8192);

const MID_SYSTEM = [
  { role: 'user', content: 'Context.' },
  { role: 'system', content: 'Agent types are listed here.' },
  { role: 'user', content: 'Hello there.' },
];

test('folding keeps every system text, in order, in one leading system message', () => {
  const folded = foldLateSystemMessages([
    { role: 'system', content: 'First.' },
    { role: 'user', content: 'u1' },
    { role: 'system', content: 'Later.' },
    { role: 'assistant', content: 'a1' },
    { role: 'system', content: [{ type: 'text', text: 'Last.' }] },
    { role: 'user', content: 'u2' },
  ]);
  assert.deepEqual(folded, [
    { role: 'system', content: 'First.\n\nLater.\n\nLast.' },
    { role: 'user', content: 'u1' },
    { role: 'assistant', content: 'a1' },
    { role: 'user', content: 'u2' },
  ]);
});

test('Messages with a mid-conversation system message: served behind a template that refuses it, refused on chat', async () => {
  const ctx = await serveInProcess(['--model-path', qwen35Folder(), '--model-name', 'qwen35', '--enable-anthropic-api', '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000']);
  try {
    const res = await postJson(ctx.baseUrl, '/v1/messages?beta=true', { model: 'qwen35', max_tokens: 64, messages: MID_SYSTEM });
    const body = (await res.json()) as { content: { type: string; text?: string }[] };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body.content.filter((b) => b.type === 'text'), [{ type: 'text', text: 'Hello there.' }]);
    const count = await postJson(ctx.baseUrl, '/v1/messages/count_tokens', { model: 'qwen35', messages: MID_SYSTEM });
    assert.equal(count.status, 200);
    const chat = await postJson(ctx.baseUrl, '/v1/chat/completions', { model: 'qwen35', max_tokens: 4, messages: MID_SYSTEM });
    assert.equal(chat.status, 400);
    assert.match(((await chat.json()) as { message: string }).message, /System message must be at the beginning/);
  } finally {
    await ctx.service.stop();
  }
});
