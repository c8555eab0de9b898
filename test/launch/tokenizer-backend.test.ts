// `--tokenizer` backends by name: fastokens is the native tokenizer with the prefix cache on; a
// tokenizer it cannot cut falls back to the default one, or fails with --no-tokenizer-fallback.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createTokenizer } from '../../src/launch/tokenizer-backend.js';
import { loadDefaultModelCard } from '../../src/models/index.js';
import { run } from '../config/helpers.js';

const card = loadDefaultModelCard();
const dir = mkdtempSync(path.join(tmpdir(), 'tokenizer-backend-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The Qwen3 tokenizer.json with no token marked special: nothing to cut prompts at. */
function withoutSpecialTokens(): string {
  const json = JSON.parse(readFileSync(card.tokenizerJsonPath, 'utf8')) as { added_tokens: { special: boolean }[] };
  for (const token of json.added_tokens) token.special = false;
  const file = path.join(dir, 'tokenizer.json');
  writeFileSync(file, JSON.stringify(json));
  return file;
}

describe('createTokenizer', () => {
  it('the default backend has the prefix cache unless DYN_TOKENIZER_CACHE is off; short prompts pass by it', async () => {
    const warnings: string[] = [];
    assert.equal(createTokenizer(card.tokenizerJsonPath, run(['frontend'], { DYN_TOKENIZER_CACHE: '0' }).config, (m) => warnings.push(m)).cache, null);
    const tokenizer = createTokenizer(card.tokenizerJsonPath, run(['frontend']).config, (m) => warnings.push(m));
    const cache = tokenizer.cache!;
    assert.ok(cache);
    await tokenizer.encode('<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n', false);
    assert.equal(cache.misses + cache.hits, 0, 'a short prompt is not looked up');
    const system = `<|im_start|>system\n${'You answer questions about travel. '.repeat(40)}<|im_end|>\n`;
    await tokenizer.encode(`${system}<|im_start|>user\nfirst<|im_end|>\n`, false);
    // A prompt is stored once the turn that tokenized it is over.
    await new Promise((resolve) => setImmediate(resolve));
    await tokenizer.encode(`${system}<|im_start|>user\nsecond<|im_end|>\n`, false);
    assert.equal(cache.hits, 1, 'the second long prompt reuses the shared system prompt');
    assert.deepEqual(warnings, []);
  });

  for (const backend of ['fastokens', 'basetenkenizer']) {
    it(`${backend} is the fastest path here: the prefix cache on even when DYN_TOKENIZER_CACHE is off`, async () => {
      const tokenizer = createTokenizer(card.tokenizerJsonPath, run(['frontend', '--tokenizer', backend], { DYN_TOKENIZER_CACHE: 'false' }).config, () => undefined);
      assert.ok(tokenizer.cache);
      assert.ok((await tokenizer.encode('<|im_start|>user\nhi<|im_end|>\n', false)).length > 0);
    });
  }

  it('falls back to the default backend with a warning, or fails when told not to', () => {
    const file = withoutSpecialTokens();
    const warnings: string[] = [];
    const tokenizer = createTokenizer(file, run(['frontend', '--tokenizer', 'fastokens']).config, (m) => warnings.push(m));
    assert.equal(tokenizer.cache, null);
    assert.match(warnings[0] ?? '', /--tokenizer fastokens cannot load .*no special tokens.*using the default tokenizer/);
    assert.throws(
      () => createTokenizer(file, run(['frontend', '--tokenizer', 'fastokens', '--no-tokenizer-fallback']).config, () => undefined),
      /--tokenizer fastokens cannot load .*no special tokens to cut prompts at/,
    );
  });
});
