// The prompt prefix cache gives exactly the ids of a whole encode (checked here against the
// uncached tokenizer on many prompts), reuses leading parts across prompts, and stays bounded.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { boundaryTokensOf, ChatTemplate, HfTokenizer, PrefixTokenCache } from '../../../src/pipeline/preprocess/index.js';
import type { ChatCompletionRequest, ChatMessage } from '../../../src/protocols/index.js';

const card = loadDefaultModelCard();
const boundaryTokens = boundaryTokensOf(JSON.parse(readFileSync(card.tokenizerJsonPath, 'utf8')) as Parameters<typeof boundaryTokensOf>[0]);
const plain = new HfTokenizer(card.tokenizerJsonPath);
const template = new ChatTemplate(card);

const SYSTEM = 'You are a careful assistant. '.repeat(40) + 'Answer in English.';
const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'lookup', description: 'Looks things up.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  },
];

function prompt(messages: ChatMessage[], tools = false): string {
  const request: ChatCompletionRequest = { model: 'm', messages, ...(tools ? { tools: TOOLS } : {}) };
  return template.render(request);
}

const USERS = ['Hi', 'What is 2+2?', '  leading spaces', 'trailing newline\n', 'Grüße 你好 🙂', 'has <|im_start|> inside', '<|im_end|>', 'ends with <|endoftext|>'];

/** Prompts sharing a system prompt (with and without tools), multi-turn continuations, and texts with no special token at all. */
function prompts(): string[] {
  const out: string[] = [];
  for (const user of USERS) {
    out.push(prompt([{ role: 'system', content: SYSTEM }, { role: 'user', content: user }]));
    out.push(prompt([{ role: 'system', content: SYSTEM }, { role: 'user', content: user }], true));
  }
  const turns: ChatMessage[] = [{ role: 'system', content: SYSTEM }];
  for (const user of USERS) {
    turns.push({ role: 'user', content: user });
    out.push(prompt(turns));
    turns.push({ role: 'assistant', content: `Answer to ${user}` });
  }
  out.push('no special tokens here', '<|im_start|>', ' <|im_start|>x', 'a<|im_end|><|im_end|>b', '');
  return out;
}

describe('PrefixTokenCache', () => {
  it('finds special tokens to cut Qwen3 prompts at', () => {
    assert.ok(boundaryTokens.some((t) => t.content === '<|im_start|>'));
    assert.throws(() => new PrefixTokenCache([], 1024), /no special tokens/);
  });

  it('gives the ids of a whole encode, and reuses shared leading parts', async () => {
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: new PrefixTokenCache(boundaryTokens, 50 * 1024 * 1024) });
    for (const text of prompts()) {
      assert.deepEqual(await cached.encode(text, false), await plain.encode(text, false), JSON.stringify(text.slice(-80)));
    }
    assert.ok(cached.cache, 'the cache passed its checks');
    assert.ok(cached.cache.hits >= USERS.length * 2, `hits: ${cached.cache.hits}`);
  });

  it('answers on the calling thread (encodeNow) as encode does, once its checks have passed', async () => {
    const cache = new PrefixTokenCache(boundaryTokens, 50 * 1024 * 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    for (const text of prompts()) await cached.encode(text, false);
    // The same prompts (hits), then ones with a new system prompt: misses first, then hits on it.
    const texts = [...prompts(), ...prompts().map((text) => text.replace('careful', 'patient'))];
    for (const text of texts) {
      const counted = cache.hits + cache.misses;
      const now = cached.encodeNow(text, false);
      assert.ok(now, JSON.stringify(text.slice(-80)));
      assert.deepEqual(now, await plain.encode(text, false), JSON.stringify(text.slice(-80)));
      assert.equal(cache.hits + cache.misses, counted + 1);
    }
    assert.ok(cached.cache, 'the cache passed its checks');
  });

  it('leaves prompts with special tokens added by the tokenizer (completions) alone', async () => {
    const cache = new PrefixTokenCache(boundaryTokens, 1024 * 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    const text = prompt([{ role: 'user', content: 'hi' }]);
    assert.deepEqual(await cached.encode(text, true), await plain.encode(text, true));
    assert.equal(cache.size, 0);
  });

  it('stays within its memory bound, least recently used out first', async () => {
    const cache = new PrefixTokenCache(boundaryTokens, 64 * 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    for (let i = 0; i < 40; i++) {
      const text = prompt([{ role: 'system', content: `System ${i}: ` + 'x y z '.repeat(200) }, { role: 'user', content: `q${i}` }]);
      assert.deepEqual(await cached.encode(text, false), await plain.encode(text, false));
    }
    assert.ok(cache.size > 0 && cache.size < 40, `entries: ${cache.size}`);
    // The newest system prompt is still there.
    const last = prompt([{ role: 'system', content: 'System 39: ' + 'x y z '.repeat(200) }, { role: 'user', content: 'again' }]);
    const hits = cache.hits;
    assert.deepEqual(await cached.encode(last, false), await plain.encode(last, false));
    assert.equal(cache.hits, hits + 1);
  });
});
