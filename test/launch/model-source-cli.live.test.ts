import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { loadDefaultModelCard } from '../../src/models/index.js';
import { freePort, runCli, startServe } from '../support/processes.js';
import { startStandInHub, type StandInHub } from '../support/stand-in-hub.js';

let hub: StandInHub;
const home = mkdtempSync(join(tmpdir(), 'hf-home-'));

before(async () => {
  const files = {
    'config.json': JSON.stringify({ max_position_embeddings: 4096 }),
    'tokenizer.json': readFileSync(loadDefaultModelCard().tokenizerJsonPath),
    'tokenizer_config.json': readFileSync(loadDefaultModelCard().files.tokenizerConfig!.path),
    'model.safetensors': 'weights',
  };
  hub = await startStandInHub({ 'acme/tiny': { revisions: { main: { commit: 'c'.repeat(40), files } }, lfs: ['tokenizer.json'] } });
});
after(async () => {
  await hub.close();
  rmSync(home, { recursive: true, force: true });
});

describe('dynamo-ts serve --model-path org/name', () => {
  it('serves a hub repository, then from the cache with HF_HUB_OFFLINE=1', async () => {
    const env = { HF_ENDPOINT: hub.endpoint, HF_HOME: home };
    const first = await startServe(['--model-path', 'acme/tiny'], env, 'acme/tiny');
    try {
      const client = new OpenAI({ baseURL: `${first.baseUrl}/v1`, apiKey: 'none' });
      const models = await client.models.list();
      assert.deepEqual(models.data.map((m) => m.id), ['acme/tiny']);
      const done = await client.chat.completions.create({ model: 'acme/tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
      assert.ok(done.choices[0]!.message.content !== undefined);
    } finally {
      await first.proc.stop();
    }
    const offline = await startServe(['--model-path', 'acme/tiny'], { HF_ENDPOINT: `http://127.0.0.1:${await freePort()}`, HF_HOME: home, HF_HUB_OFFLINE: '1' }, 'acme/tiny');
    await offline.proc.stop();
  });

  it('fails in one line naming an unknown repository or an unreachable hub', async () => {
    const missing = await runCli(['serve', '--model-path', 'acme/missing'], { HF_ENDPOINT: hub.endpoint, HF_HOME: home });
    assert.equal(missing.code, 1);
    assert.match(missing.output, /^error: Hugging Face repository acme\/missing not found at http:\/\/127\.0\.0\.1:\d+/m);
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const down = await runCli(['serve', '--model-path', 'acme/other'], { HF_ENDPOINT: endpoint, HF_HOME: home });
    assert.equal(down.code, 1);
    assert.match(down.output, new RegExp(`^error: cannot reach the Hugging Face hub at ${endpoint} .*HF_HUB_OFFLINE=1.*--model-path DIR$`, 'm'));
  });
});
