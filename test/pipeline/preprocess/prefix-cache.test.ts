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

/** The end of this turn of the event loop, where the cache stores what was encoded in it. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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

  it('stores a prompt once the turn that encoded it is over, with the ids it was given', async () => {
    const cache = new PrefixTokenCache(boundaryTokens, 1024 * 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    for (const text of prompts()) await cached.encode(text, false);
    await nextTurn();
    const text = prompt([{ role: 'system', content: 'A new system prompt. '.repeat(60) }, { role: 'user', content: 'one' }]);
    const size = cache.size;
    const ids = cached.encodeNow(text, false);
    assert.deepEqual(ids, await plain.encode(text, false));
    // Not yet: the ids go to their engine first.
    assert.equal(cache.size, size);
    await nextTurn();
    assert.equal(cache.size, size + 1);
    const next = prompt([{ role: 'system', content: 'A new system prompt. '.repeat(60) }, { role: 'user', content: 'two' }]);
    const hits = cache.hits;
    assert.deepEqual(cached.encodeNow(next, false), await plain.encode(next, false));
    assert.equal(cache.hits, hits + 1);
  });

  it('stays within its memory bound, least recently used out first', async () => {
    const cache = new PrefixTokenCache(boundaryTokens, 64 * 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    for (let i = 0; i < 40; i++) {
      const text = prompt([{ role: 'system', content: `System ${i}: ` + 'x y z '.repeat(200) }, { role: 'user', content: `q${i}` }]);
      assert.deepEqual(await cached.encode(text, false), await plain.encode(text, false));
    }
    await nextTurn();
    assert.ok(cache.size > 0 && cache.size < 40, `entries: ${cache.size}`);
    // The newest system prompt is still there.
    const last = prompt([{ role: 'system', content: 'System 39: ' + 'x y z '.repeat(200) }, { role: 'user', content: 'again' }]);
    const hits = cache.hits;
    assert.deepEqual(await cached.encode(last, false), await plain.encode(last, false));
    assert.equal(cache.hits, hits + 1);
  });

  it('keeps its texts and ids in one arena written as a ring: right ids across many laps, a prompt in use kept', async () => {
    // ~6 KB an entry in a 96 KB arena: a lap every ~5 rounds of three.
    const cache = new PrefixTokenCache(boundaryTokens, 96 * 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    const system = (i: number): string => `System ${i}: ` + 'alpha beta gamma '.repeat(120);
    const kept = prompt([{ role: 'system', content: system(-1) }, { role: 'user', content: 'first' }]);
    assert.deepEqual(await cached.encode(kept, false), await plain.encode(kept, false));
    for (let i = 0; i < 60; i++) {
      const text = prompt([{ role: 'system', content: system(i) }, { role: 'user', content: `q${i}` }]);
      assert.deepEqual(await cached.encode(text, false), await plain.encode(text, false), `prompt ${i}`);
      await nextTurn();
      // A follow-up on the same system prompt hits it; so does one on the kept prompt, in use all along.
      const again = prompt([{ role: 'system', content: system(i) }, { role: 'user', content: `again ${i}` }]);
      const hits = cache.hits;
      assert.deepEqual(await cached.encode(again, false), await plain.encode(again, false), `again ${i}`);
      assert.equal(cache.hits, hits + 1, `again ${i} hits`);
      await nextTurn();
      const more = prompt([{ role: 'system', content: system(-1) }, { role: 'user', content: `more ${i}` }]);
      assert.deepEqual(await cached.encode(more, false), await plain.encode(more, false), `more ${i}`);
      assert.equal(cache.hits, hits + 2, `more ${i} hits`);
    }
    assert.ok(cache.size > 0 && cache.size < 30, `entries: ${cache.size} of 181 stored`);
    // An early system prompt left long ago.
    const misses = cache.misses;
    await cached.encode(prompt([{ role: 'system', content: system(0) }, { role: 'user', content: 'back' }]), false);
    assert.equal(cache.misses, misses + 1);
  });

  it('copies a hit before waiting for the native encoder: stores made meanwhile do not change it', async () => {
    // No fast encoder: every prompt waits for the native one, many at once, in an arena that wraps under them.
    const cache = new PrefixTokenCache(boundaryTokens, 64 * 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache, fastBpeMaxChars: 0 });
    const shared = (i: number): string => `Shared ${i}: ` + 'one two three four '.repeat(80);
    const first = Array.from({ length: 6 }, (_, i) => prompt([{ role: 'system', content: shared(i) }, { role: 'user', content: 'start' }]));
    for (const text of first) await cached.encode(text, false);
    const texts: string[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 6; i++) texts.push(prompt([{ role: 'system', content: shared(i) }, { role: 'user', content: `round ${round}` }]));
      for (let i = 0; i < 6; i++) texts.push(prompt([{ role: 'system', content: `New ${round}-${i}: ` + 'five six seven '.repeat(90) }, { role: 'user', content: 'x' }]));
    }
    const answers = await Promise.all(texts.map((text) => cached.encode(text, false)));
    for (let i = 0; i < texts.length; i++) assert.deepEqual(answers[i], await plain.encode(texts[i]!, false), `text ${i}`);
    assert.ok(cache.hits > 0, `hits: ${cache.hits}`);
  });

  it('gives a hit copied to the head its new place: the copy may write over the old one', async () => {
    // Prompts of 1-4 KB in a 64 KB arena, system prompts reused at random: hits on entries right
    // ahead of the head are copied onto places overlapping their own.
    const cache = new PrefixTokenCache(boundaryTokens, 64 * 1024, 1024);
    const cached = new HfTokenizer(card.tokenizerJsonPath, { prefixCache: cache });
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const systems = Array.from({ length: 30 }, (_, i) => `System ${i}: ` + 'word '.repeat(200 + next(600)));
    for (let i = 0; i < 300; i++) {
      const turns: ChatMessage[] = [{ role: 'system', content: systems[next(systems.length)]! }];
      const n = 1 + next(3);
      for (let k = 0; k < n; k++) {
        turns.push({ role: 'user', content: `question ${next(50)} ${k}` });
        if (k < n - 1) turns.push({ role: 'assistant', content: `answer ${next(50)}` });
      }
      const text = prompt(turns);
      const ids = cached.encodeNow(text, false) ?? (await cached.encode(text, false));
      assert.deepEqual(ids, await plain.encode(text, false), `prompt ${i}`);
    }
    assert.ok(cached.cache, 'the cache passed its checks (a hit with wrong ids turns it off)');
    assert.ok(cache.hits > 30, `hits: ${cache.hits}`);
  });
});
