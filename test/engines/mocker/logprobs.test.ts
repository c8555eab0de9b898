// The mocker's logprobs: deterministic, the sampled token ranked first among the requested number
// of distinct alternatives, probabilities that are a valid distribution, and text unchanged by
// asking for them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../src/protocols/index.js';
import { collect, fastEngine, ids, prompt, request, source } from './helpers.js';

function withLogprobs(logprobs: number | null, seed = 7) {
  const req = request(prompt(12, 3), { maxTokens: 20, ignoreEos: true, seed });
  req.output_options = { logprobs };
  return req;
}

test('logprobs are deterministic and leave the generated tokens unchanged', async () => {
  const engine = fastEngine();
  try {
    const a = await collect(engine, withLogprobs(3));
    const b = await collect(engine, withLogprobs(3));
    const plain = await collect(engine, withLogprobs(null));
    assert.deepEqual(a, b);
    assert.deepEqual(ids(a), ids(plain));
    assert.ok(plain.every((o) => o.log_probs === undefined && o.top_logprobs === undefined));
    const other = await collect(engine, withLogprobs(3, 8));
    assert.notDeepEqual(other.map((o) => o.log_probs), a.map((o) => o.log_probs));
  } finally {
    engine.close();
  }
});

test('each token has its logprob and k distinct alternatives, itself first, forming a distribution', async () => {
  const engine = fastEngine();
  try {
    const outs = await collect(engine, withLogprobs(5));
    assert.equal(outs.length, 20);
    for (const out of outs) {
      const [id] = out.token_ids;
      const [lp] = out.log_probs!;
      const [alts] = out.top_logprobs!;
      assert.equal(out.log_probs!.length, 1);
      assert.equal(alts!.length, 5);
      assert.deepEqual(alts!.map((a) => a.rank), [1, 2, 3, 4, 5]);
      assert.equal(alts![0]!.token_id, id);
      assert.equal(alts![0]!.logprob, lp);
      assert.equal(new Set(alts!.map((a) => a.token_id)).size, 5);
      for (let i = 1; i < alts!.length; i++) assert.ok(alts![i]!.logprob < alts![i - 1]!.logprob);
      assert.ok(lp! < 0);
      assert.ok(alts!.reduce((sum, a) => sum + Math.exp(a.logprob), 0) <= 1);
      for (const alt of alts!) {
        const bytes = source.tokenBytes(alt.token_id)!;
        assert.deepEqual(Buffer.from(alt.bytes ?? Buffer.from(alt.token!)), Buffer.from(bytes));
      }
    }
  } finally {
    engine.close();
  }
});

test('top_logprobs 0 gives the sampled logprob without alternatives; out-of-range counts are rejected', async () => {
  const engine = fastEngine();
  try {
    const outs = await collect(engine, withLogprobs(0));
    assert.ok(outs.every((o) => o.log_probs!.length === 1 && o.top_logprobs === undefined));
    await assert.rejects(collect(engine, withLogprobs(21)), (err) => err instanceof ValidationError && /logprobs must be an integer between 0 and 20, got 21/.test(err.message));
  } finally {
    engine.close();
  }
});
