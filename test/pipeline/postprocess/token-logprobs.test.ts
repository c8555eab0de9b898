// Per-token logprobs through decodeStream and the ResponseFold: upstream's zip of tokens, ids and
// logprobs, entries travelling with the text the stop jail releases, text offsets after an echoed
// prompt, and no entries at all when the request did not ask for them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseFold, TokenTable, tokenLogprobs, type DecodedStep, type TokenLogprob } from '../../../src/pipeline/postprocess/index.js';
import type { TopLogprob } from '../../../src/protocols/index.js';
import { run, fakeTable, HI, THERE, EOS, DELTA, ZETA, ETA } from './support.js';

const top = (token_id: number, token: string, logprob: number, rank: number): TopLogprob => ({ rank, token_id, token, logprob });

function fold(steps: DecodedStep[], opts: { collectText?: boolean; prefix?: string } = {}) {
  const f = new ResponseFold({
    promptTokens: 1,
    collectText: opts.collectText ?? false,
    logprobs: true,
    prefix: opts.prefix === undefined ? undefined : () => opts.prefix!,
  });
  const deltas = steps.map((s) => f.step(s)).filter((d) => d !== null);
  return { deltas, choices: f.choices() };
}

const tokensOf = (entries: TokenLogprob[] | undefined) => (entries ?? []).map((e) => e.token);

test('entries pair each token with its logprob and alternatives; the sampled token joins them when missing', async () => {
  const r = await run(
    [{ token_ids: [HI, THERE], log_probs: [-0.5, -1.5], top_logprobs: [[top(HI, 'hi', -0.5, 1), top(THERE, 'there', -2, 2)], [top(HI, 'hi', -0.25, 1)]] }],
    {},
    { logprobs: 2 },
  );
  const [hi, there] = r.steps[0]!.logprobs!;
  assert.deepEqual(hi, {
    token: 'hi',
    logprob: -0.5,
    bytes: [104, 105],
    top: [
      { token: 'hi', logprob: -0.5, bytes: [104, 105] },
      { token: 'there', logprob: -2, bytes: [116, 104, 101, 114, 101] },
    ],
    textOffset: 0,
  });
  assert.deepEqual(there!.top.map((t) => [t.token, t.logprob]), [['hi', -0.25], ['there', -1.5]]);
});

test('no top_logprobs from the engine gives empty alternatives (top_logprobs 0), as upstream', () => {
  const entries = tokenLogprobs(['hi'], [HI], [-0.125], null, fakeTable);
  assert.deepEqual(entries[0]!.top, []);
  assert.equal(entries[0]!.logprob, -0.125);
});

test('a request that did not ask for logprobs gets no entries, whatever the engine sends', async () => {
  const r = await run([{ token_ids: [HI], log_probs: [-1] }]);
  assert.equal(r.steps[0]!.logprobs, undefined);
  const off = new ResponseFold({ promptTokens: 1, collectText: true });
  off.step({ ...r.steps[0]!, logprobs: tokenLogprobs(['hi'], [HI], [-1], null, fakeTable) });
  assert.equal(off.choices()[0]!.logprobs, undefined);
});

test('a hidden stop token is reported as "" without bytes; ids after a local stop have no entry', async () => {
  const r = await run([{ token_ids: [HI, EOS, THERE], log_probs: [-1, -2, -3] }], { stop_token_ids_hidden: [EOS] }, { logprobs: 0 });
  assert.deepEqual(r.steps[0]!.logprobs!.map((e) => [e.token, e.logprob, e.bytes]), [['hi', -1, [104, 105]], ['', -2, null]]);
});

test('entries of tokens the stop jail holds back travel with the text when it is released', async () => {
  const r = await run(
    [
      { token_ids: [DELTA], log_probs: [-1] },
      { token_ids: [ZETA], log_probs: [-2] },
      { token_ids: [ETA], log_probs: [-3] },
      { token_ids: [HI], log_probs: [-4], finish_reason: 'length' },
    ],
    { stop: [' zeta eta theta'] },
    { logprobs: 0 },
  );
  const { deltas, choices } = fold(r.steps, { collectText: true });
  assert.deepEqual(deltas.map((d) => [d.text, tokensOf(d.logprobs)]), [
    [' delta', [' delta']],
    [' zeta etahi', [' zeta', ' eta', 'hi']],
  ]);
  assert.deepEqual(tokensOf(choices[0]!.logprobs), [' delta', ' zeta', ' eta', 'hi']);
  assert.deepEqual(choices[0]!.logprobs!.map((e) => e.textOffset), [0, 6, 11, 15]);
});

test('an echoed prompt comes first and text offsets start after it', async () => {
  const r = await run([{ token_ids: [HI], log_probs: [-1] }, { token_ids: [THERE], log_probs: [-2], finish_reason: 'stop' }], {}, { logprobs: 0 });
  const stream = fold(r.steps, { prefix: 'Say 👋 ' });
  assert.deepEqual(stream.deltas.map((d) => d.text), ['Say 👋 hi', 'there']);
  // The emoji is one character (two UTF-16 units).
  assert.deepEqual(stream.deltas.map((d) => d.logprobs![0]!.textOffset), [6, 8]);
  const unary = fold(r.steps, { collectText: true, prefix: 'Say 👋 ' });
  assert.equal(unary.choices[0]!.text, 'Say 👋 hithere');
});

test("a split character's tokens carry their raw bytes", async () => {
  const table = TokenTable.fromJson({
    decoder: { type: 'Sequence', decoders: [{ type: 'ByteFallback' }, { type: 'Fuse' }] },
    model: { type: 'BPE', vocab: { '<0xC3>': 0, '<0xA9>': 1 } },
  });
  const r = await run([{ token_ids: [0, 1], log_probs: [-1, -2], finish_reason: 'length' }], {}, { table, logprobs: 0 });
  assert.equal(r.text, 'é');
  assert.deepEqual(r.steps[0]!.logprobs!.map((e) => e.bytes), [[0xc3], [0xa9]]);
});

test('alternatives the engine named by id only get their text and bytes from the token table', () => {
  const entries = tokenLogprobs(['hi'], [HI], [-0.5], [[{ rank: 1, token_id: THERE, token: null, logprob: -0.25 }]], fakeTable);
  assert.deepEqual(entries[0]!.top, [
    { token: 'there', logprob: -0.25, bytes: [116, 104, 101, 114, 101] },
    { token: 'hi', logprob: -0.5, bytes: [104, 105] },
  ]);
});

test('engine-decoded steps name their tokens by text: entries follow them, bytes from their UTF-8, alternatives as sent', async () => {
  const alt = (token: string, logprob: number): TopLogprob => ({ rank: 1, token_id: -1, token, logprob });
  const r = await run(
    [{ token_ids: [HI, THERE, HI], text: 'né!', tokens: ['n', 'é', '!'], log_probs: [-1, -2, -3], top_logprobs: [[alt('n', -1)], [alt('e', -0.5)], []] }],
    {},
    { logprobs: 1 },
  );
  assert.equal(r.steps[0]!.text, 'né!');
  assert.deepEqual(r.steps[0]!.logprobs, [
    { token: 'n', logprob: -1, bytes: [110], top: [{ token: 'n', logprob: -1, bytes: [110] }], textOffset: 0 },
    { token: 'é', logprob: -2, bytes: [195, 169], top: [{ token: 'e', logprob: -0.5, bytes: [101] }], textOffset: 0 },
    { token: '!', logprob: -3, bytes: [33], top: [], textOffset: 0 },
  ]);
});
