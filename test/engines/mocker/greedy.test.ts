import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EOS_ID, collect, fastEngine, ids, prompt, request, source, vocab } from './helpers.js';

/** A chat-like prompt: ends with a special token and a short header, as a chat template does. */
function chatPrompt(salt: number): number[] {
  const special = [...source.specialIds].find((id) => id !== EOS_ID)!;
  return [...prompt(24, salt), special, 77091, 198];
}

/** True when the token starts a two-token unit of the vocabulary. */
function startsSplit(token: number): boolean {
  for (let u = 0; u + 1 < vocab.unitStart.length; u++) {
    if (vocab.unitStart[u + 1]! - vocab.unitStart[u]! === 2 && vocab.unitTokens[vocab.unitStart[u]!] === token) return true;
  }
  return false;
}

async function splitEverywhere(base: number[], shape: { seed: number; maxTokens: number; ignoreEos?: boolean }): Promise<number[]> {
  const engine = fastEngine();
  const full = ids(await collect(engine, request(base, shape)));
  for (let k = 1; k < full.length; k++) {
    const rest = ids(await collect(engine, request([...base, ...full.slice(0, k)], { ...shape, maxTokens: shape.maxTokens - k })));
    assert.deepEqual([...full.slice(0, k), ...rest], full, `split at ${k} of ${full.length}`);
  }
  engine.close();
  return full;
}

test('greedy: prompt + first k tokens with max_tokens - k continues exactly as the unbroken run (natural EOS)', async () => {
  let cutInsideUnit = 0;
  for (let salt = 0; salt < 3; salt++) {
    const full = await splitEverywhere(chatPrompt(salt), { seed: 5 + salt, maxTokens: 400 });
    assert.equal(full.at(-1), EOS_ID, 'the natural end comes before max_tokens');
    cutInsideUnit += full.slice(0, -1).filter(startsSplit).length;
  }
  assert.ok(cutInsideUnit > 0, 'some split fell inside a two-token unit');
});

test('greedy: the same holds when max_tokens ends the run, with a prompt that has no special token', async () => {
  const full = await splitEverywhere(prompt(30, 4), { seed: 9, maxTokens: 90, ignoreEos: true });
  assert.equal(full.length, 90);
});
