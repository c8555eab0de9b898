import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadDefaultModelCard, loadModelCard, toCardJson } from '../../src/models/index.js';

const qwen = loadDefaultModelCard();

function modelFolder(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'card-'));
  copyFileSync(qwen.tokenizerJsonPath, join(dir, 'tokenizer.json'));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

const folders: string[] = [];
after(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })));

function folder(files: Record<string, unknown>): string {
  const dir = modelFolder(files);
  folders.push(dir);
  return dir;
}

describe('loadDefaultModelCard', () => {
  it('serves the shipped Qwen3 tokenizer as Qwen/Qwen3-0.6B', () => {
    assert.equal(qwen.displayName, 'Qwen/Qwen3-0.6B');
    assert.equal(qwen.contextLength, 40960);
    assert.deepEqual(qwen.eosTokenIds, [151645, 151643]);
    assert.equal(qwen.eosToken, '<|im_end|>');
    assert.equal(qwen.bosToken, null);
    assert.equal(qwen.kvCacheBlockSize, 64);
    assert.deepEqual(qwen.modelType, ['Chat', 'Completions']);
    assert.equal(qwen.modelInput, 'Tokens');
    assert.ok(qwen.chatTemplates.default?.includes('<|im_start|>'));
  });

  it('takes --model-name as the display name', () => {
    const card = loadDefaultModelCard({ displayName: 'my-model', kvCacheBlockSize: 16 });
    assert.equal(card.displayName, 'my-model');
    assert.equal(card.slug, 'my-model');
    assert.equal(card.kvCacheBlockSize, 16);
  });
});

describe('loadModelCard', () => {
  it('reads config, tokenizer_config, generation_config and a chat_template.jinja override', () => {
    const dir = folder({
      'config.json': { max_position_embeddings: 4096, model_type: 'llama' },
      'tokenizer_config.json': {
        chat_template: 'from-config',
        bos_token: { content: '<s>', lstrip: false },
        eos_token: '<|im_end|>',
        added_tokens_decoder: { '151645': { content: '<|im_end|>', special: true } },
        unk_token: '<unk>',
        model_max_length: 1e30,
      },
      'generation_config.json': { eos_token_id: [151643, 7], temperature: 0.6 },
      'chat_template.jinja': '{% for m in messages %}{{ m.content }}{% endfor %}',
    });
    const card = loadModelCard(dir, { displayName: 'Org/Model.v1' });
    assert.equal(card.displayName, 'Org/Model.v1');
    assert.equal(card.slug, 'org--model_v1');
    assert.equal(card.contextLength, 4096);
    // generation_config ids first, then the tokenizer_config eos token resolved to its id.
    assert.deepEqual(card.eosTokenIds, [151643, 7, 151645]);
    assert.equal(card.bosToken, '<s>');
    assert.equal(card.unkToken, '<unk>');
    assert.equal(card.generationConfig.temperature, 0.6);
    assert.deepEqual(card.chatTemplates, { default: '{% for m in messages %}{{ m.content }}{% endfor %}' });
  });

  it('reads named templates and falls back to a sane model_max_length', () => {
    const dir = folder({
      'tokenizer_config.json': {
        chat_template: [
          { name: 'default', template: 'plain' },
          { name: 'tool_use', template: 'tools' },
        ],
        eos_token: '<|endoftext|>',
        model_max_length: 8192,
      },
      'generation_config.json': { eos_token_id: 151643 },
    });
    const card = loadModelCard(dir);
    assert.equal(card.contextLength, 8192);
    assert.deepEqual(card.eosTokenIds, [151643]);
    assert.deepEqual(card.chatTemplates, { default: 'plain', tool_use: 'tools' });
  });

  it('uses n_positions and the option override', () => {
    const dir = folder({ 'config.json': { n_positions: 1024 } });
    assert.equal(loadModelCard(dir).contextLength, 1024);
    assert.equal(loadModelCard(dir, { contextLength: 512 }).contextLength, 512);
    assert.deepEqual(loadModelCard(dir).modelType, ['Completions']);
  });

  it('names what is missing', () => {
    assert.throws(() => loadModelCard('/nonexistent/model'), /Model folder not found: \/nonexistent\/model/);
    const empty = mkdtempSync(join(tmpdir(), 'card-'));
    folders.push(empty);
    assert.throws(() => loadModelCard(empty), /has no tokenizer\.json/);
    const noContext = folder({ 'tokenizer_config.json': { model_max_length: 1e30 } });
    assert.throws(() => loadModelCard(noContext), /Cannot tell the context length/);
  });
});

describe('toCardJson', () => {
  it('uses upstream card_json field names', () => {
    const dir = folder({
      'config.json': { max_position_embeddings: 2048 },
      'tokenizer_config.json': { chat_template: 'x', eos_token: '<|im_end|>' },
      'generation_config.json': { eos_token_id: 151645 },
    });
    const json = toCardJson(loadModelCard(dir, { displayName: 'm', migrationLimit: 3 }));
    assert.equal(json.display_name, 'm');
    assert.equal(json.slug, 'm');
    assert.equal(json.kv_cache_block_size, 64);
    assert.equal(json.migration_limit, 3);
    assert.equal(json.model_type, 'Chat | Completions');
    assert.equal(json.model_input, 'Tokens');
    assert.equal(json.context_length, 2048);
    assert.deepEqual(json.runtime_config, { context_length: 2048 });
    const tokenizer = json.tokenizer as { hf_tokenizer_json: { path: string; size: number } };
    assert.equal(tokenizer.hf_tokenizer_json.path, join(dir, 'tokenizer.json'));
    assert.ok(tokenizer.hf_tokenizer_json.size > 0);
    assert.ok((json.prompt_formatter as Record<string, unknown>).hf_tokenizer_config_json);
    assert.ok((json.gen_config as Record<string, unknown>).hf_generation_config_json);
    assert.ok((json.model_info as Record<string, unknown>).hf_config_json);
    assert.equal(json.chat_template_file, null);
  });
});
