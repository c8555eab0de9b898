// The engine's chosen output: a script of tokens, one per decode step, then EOS; the stop rules
// (max_tokens, ignore_eos, stop token ids) apply to it as to random text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collect, EOS_ID, fastEngine, ids, prompt, request } from './helpers.js';

const SCRIPT = [9707, 11, 1879, 0];

test('a scripted engine answers with the script, then EOS', async () => {
  const engine = fastEngine({ output: () => SCRIPT });
  try {
    const outs = await collect(engine, request(prompt(8), { maxTokens: 50 }));
    assert.deepEqual(ids(outs), [...SCRIPT, EOS_ID]);
    assert.ok(outs.slice(0, -1).every((o) => o.token_ids.length === 1 && o.finish_reason === undefined), 'one token per step');
    assert.equal(outs.at(-1)!.finish_reason, 'eos');
    assert.equal(outs.at(-1)!.completion_usage!.completion_tokens, SCRIPT.length + 1);
  } finally {
    engine.close();
  }
});

test('max_tokens and stop token ids cut the script; ignore_eos runs on past it', async () => {
  const engine = fastEngine({ output: async () => SCRIPT });
  try {
    const cut = await collect(engine, request(prompt(8), { maxTokens: 2 }));
    assert.deepEqual(ids(cut), SCRIPT.slice(0, 2));
    assert.equal(cut.at(-1)!.finish_reason, 'length');

    const stopped = await collect(engine, request(prompt(8), { stopTokenIds: [1879] }));
    assert.deepEqual(ids(stopped), SCRIPT.slice(0, 3));
    assert.equal(stopped.at(-1)!.finish_reason, 'stop');

    const onward = await collect(engine, request(prompt(8), { maxTokens: 10, ignoreEos: true }));
    assert.deepEqual(ids(onward).slice(0, SCRIPT.length), SCRIPT);
    assert.equal(ids(onward).length, 10);
    assert.equal(onward.at(-1)!.finish_reason, 'length');
  } finally {
    engine.close();
  }
});

test('a script that answers null keeps the seeded random text', async () => {
  const scripted = fastEngine({ output: () => null });
  const plain = fastEngine();
  try {
    const req = request(prompt(8), { maxTokens: 12, seed: 7 });
    assert.deepEqual(ids(await collect(scripted, req)), ids(await collect(plain, req)));
  } finally {
    scripted.close();
    plain.close();
  }
});
