// Every row of the upstream decoder test table (http.md §4.6), one test each. Unless the row is
// about several engine steps, all ids arrive in one engine output, as in process_token_ids.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, HI, STOP, THERE, EOS, DELTA, EPSILON, ZETA, ETA, THETA, OH, OTHER, A, B } from './support.js';

test('[HI, THERE], no stop config: "hithere", no stop trigger', async () => {
  const r = await run([{ token_ids: [HI, THERE] }]);
  assert.equal(r.text, 'hithere');
  assert.equal(r.localStops, 0);
  assert.equal(r.steps[0]!.finish_reason, null);
  // The stream ended without a finish: the synthetic step finishes it.
  assert.equal(r.final.finish_reason, 'stop');
  assert.equal(r.final.stop_reason, null);
});

test('[HI, EOS], hidden ids {EOS}: "hi", hidden stop token', async () => {
  const r = await run([{ token_ids: [HI, EOS] }], { stop_token_ids_hidden: [EOS] });
  assert.equal(r.text, 'hi');
  assert.equal(r.steps.length, 1);
  assert.equal(r.final.finish_reason, 'stop');
  assert.equal(r.final.engine_finish_reason, 'eos');
  assert.equal(r.final.stop_reason, null);
  assert.equal(r.localStops, 1);
});

test('[HI, STOP, THERE], stop "STOP": "hi", hidden stop sequence', async () => {
  const r = await run([{ token_ids: [HI, STOP, THERE] }], { stop: ['STOP'] });
  assert.equal(r.text, 'hi');
  assert.equal(r.final.finish_reason, 'stop');
  assert.equal(r.final.stop_reason, 'STOP');
  assert.deepEqual(r.final.tokens, ['hi', 'STOP']);
});

test('[HI, STOP, THERE], stop "STOP", include_stop_str: "hiSTOP", visible stop sequence', async () => {
  const r = await run([{ token_ids: [HI, STOP, THERE] }], { stop: ['STOP'] }, { includeStopStrInOutput: true });
  assert.equal(r.text, 'hiSTOP');
  assert.equal(r.final.finish_reason, 'stop');
  assert.equal(r.final.stop_reason, 'STOP');
});

test('[HI, EOS, THERE], hidden {EOS}: "hi", trailing tokens ignored, 2 token reports', async () => {
  const r = await run([{ token_ids: [HI, EOS, THERE] }, { token_ids: [THERE] }], { stop_token_ids_hidden: [EOS] });
  assert.equal(r.text, 'hi');
  assert.equal(r.steps.length, 1);
  assert.deepEqual(r.final.tokens, ['hi', null]);
  // The engine's ids are reported unchanged; nothing after the stop is pulled or decoded.
  assert.deepEqual(r.final.token_ids, [HI, EOS, THERE]);
  assert.equal(r.pulled, 1);
  assert.equal(r.localStops, 1);
});

test('[HI, EOS], min_tokens=3, hidden {EOS}: "hi</s>", stop suppressed', async () => {
  const r = await run([{ token_ids: [HI, EOS] }], { min_tokens: 3, stop_token_ids_hidden: [EOS] });
  assert.equal(r.text, 'hi</s>');
  assert.equal(r.localStops, 0);
  assert.equal(r.steps[0]!.finish_reason, null);
});

test('[HI, STOP], hidden ids {STOP} and stop string "STOP": "hi", the token stop wins', async () => {
  const r = await run([{ token_ids: [HI, STOP] }], { stop_token_ids_hidden: [STOP], stop: ['STOP'] });
  assert.equal(r.text, 'hi');
  assert.equal(r.final.engine_finish_reason, 'eos');
  assert.equal(r.final.stop_reason, null);
});

test('[HI, STOP], user stop_token_ids {STOP}, hidden {EOS}: "hi", stop_reason = the id', async () => {
  const r = await run([{ token_ids: [HI, STOP] }], { stop_token_ids: [STOP], stop_token_ids_hidden: [EOS] });
  assert.equal(r.text, 'hi');
  assert.equal(r.final.finish_reason, 'stop');
  assert.equal(r.final.engine_finish_reason, 'stop');
  assert.equal(r.final.stop_reason, STOP);
});

test('[DELTA, EPSILON, ZETA, ETA, THETA], stop " zeta eta theta": " delta epsilon", nothing leaks', async () => {
  const r = await run(
    [DELTA, EPSILON, ZETA, ETA, THETA].map((id) => ({ token_ids: [id] })),
    { stop: [' zeta eta theta'] },
  );
  assert.equal(r.text, ' delta epsilon');
  assert.deepEqual(r.steps.map((s) => s.text), [' delta', ' epsilon', '', '', '']);
  assert.equal(r.final.stop_reason, ' zeta eta theta');
  // Per-token text is each token's own, even while held back.
  assert.deepEqual(r.steps.map((s) => s.tokens), [[' delta'], [' epsilon'], [' zeta'], [' eta'], [' theta']]);
});

test('[OH, OTHER], stop "ozzy": step 1 releases nothing, step 2 releases "othere"', async () => {
  const r = await run([{ token_ids: [OH] }, { token_ids: [OTHER] }], { stop: ['ozzy'] });
  assert.equal(r.steps[0]!.text, '');
  assert.equal(r.steps[1]!.text, 'othere');
  assert.equal(r.text, 'othere');
  assert.equal(r.localStops, 0);
});

test('[DELTA, ZETA, ETA] then flush, stop " zeta eta theta": " delta", then the flush gives " zeta eta"', async () => {
  const r = await run([{ token_ids: [DELTA, ZETA, ETA] }], { stop: [' zeta eta theta'] });
  assert.equal(r.steps.length, 2);
  assert.equal(r.steps[0]!.text, ' delta');
  assert.equal(r.steps[1]!.text, ' zeta eta');
  assert.equal(r.final.finish_reason, 'stop');
  assert.equal(r.final.stop_reason, null);
  assert.equal(r.localStops, 0);
});

test('[HI, EOS], hidden {EOS}, stop "hiya": "hi" (the jailed prefix is flushed), hidden token', async () => {
  const r = await run([{ token_ids: [HI] }, { token_ids: [EOS] }], { stop_token_ids_hidden: [EOS], stop: ['hiya'] });
  assert.deepEqual(r.steps.map((s) => s.text), ['', 'hi']);
  assert.equal(r.final.engine_finish_reason, 'eos');
  assert.equal(r.final.stop_reason, null);
});

test('[HI, STOP], visible ids {STOP}, stop "hiya": "hiSTOP", visible stop token', async () => {
  const r = await run([{ token_ids: [HI, STOP] }], { stop_token_ids_visible: [STOP], stop: ['hiya'] });
  assert.equal(r.text, 'hiSTOP');
  assert.deepEqual(r.final.tokens, ['hi', 'STOP']);
  assert.equal(r.final.finish_reason, 'stop');
  assert.equal(r.final.stop_reason, STOP);
  assert.equal(r.localStops, 1);
});

test('[a,a,a,a,a,b], stop "aaaab": "a", hidden sequence "aaaab"', async () => {
  const r = await run([A, A, A, A, A, B].map((id) => ({ token_ids: [id] })), { stop: ['aaaab'] });
  assert.equal(r.text, 'a');
  assert.equal(r.final.stop_reason, 'aaaab');
  assert.equal(r.final.finish_reason, 'stop');
});
