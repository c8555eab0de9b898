// Stop strings beyond the upstream table: spanning tokens, inside multi-byte characters, several
// stop strings at once, and held-back text at the end of generation.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer } from 'tokenizers';
import { StopJail, TokenTable } from '../../../src/pipeline/postprocess/index.js';
import { run, qwen3Paths, plainTokenizerJson, DELTA, ZETA, HI } from './support.js';

const paths = qwen3Paths();
const qwen = TokenTable.fromFile(paths.tokenizer);
const native = Tokenizer.fromFile(paths.tokenizer);

/** Feeds text pieces to a jail and returns [released pieces, matched stop]. */
function jail(stops: string[], pieces: string[], include = false): [string[], string | null] {
  const j = new StopJail(stops, include);
  const out: string[] = [];
  for (const p of pieces) {
    out.push(j.push(p));
    if (j.matched !== null) return [out, j.matched];
  }
  out.push(j.flush());
  return [out, null];
}

test('a stop string spanning several real tokens, one token per engine step', async () => {
  const ids = (await native.encode('Hello world, please stop right here and go on')).getIds();
  const r = await run(ids.map((id) => ({ token_ids: [id] })), { stop: ['stop right here'] }, { table: qwen });
  assert.equal(r.text, 'Hello world, please ');
  assert.equal(r.final.stop_reason, 'stop right here');
  assert.equal(r.localStops, 1);
});

test('a stop string inside a multi-byte character split across byte tokens', async () => {
  const table = TokenTable.fromJson({
    decoder: { type: 'Sequence', decoders: [{ type: 'ByteFallback' }, { type: 'Fuse' }] },
    model: { type: 'BPE', vocab: { h: 0, '<0xC3>': 1, '<0xA9>': 2, x: 3, '<0xF0>': 4, '<0x9F>': 5, '<0x98>': 6, '<0x80>': 7 } },
  });
  const r1 = await run([0, 1, 2, 3].map((id) => ({ token_ids: [id] })), { stop: ['é'] }, { table });
  assert.equal(r1.text, 'h');
  assert.equal(r1.final.stop_reason, 'é');
  const r2 = await run([{ token_ids: [0, 4, 5, 6, 7, 3] }], { stop: ['h😀x'] }, { table, includeStopStrInOutput: true });
  assert.equal(r2.text, 'h😀x');
  assert.ok(!r2.text.includes('\ufffd'));
});

test('when one stop string is a prefix of another, the one that completes first wins', () => {
  assert.deepEqual(jail(['abc', 'ab'], ['a', 'b', 'c']), [['', ''], 'ab']);
  assert.deepEqual(jail(['abc', 'ab'], ['xabc']), [['x'], 'ab']);
  assert.deepEqual(jail(['ab', 'abc'], ['xabc'], true), [['xab'], 'ab']);
  // Same end: the longer (earlier-starting) match hides more.
  assert.deepEqual(jail(['b', 'ab'], ['xab']), [['x'], 'ab']);
  // A later-ending longer match does not beat an earlier-ending one, however the text is split.
  assert.deepEqual(jail(['abcd', 'bc'], ['abcd']), [['a'], 'bc']);
  assert.deepEqual(jail(['abcd', 'bc'], ['a', 'b', 'c', 'd']), [['', '', 'a'], 'bc']);
});

test('held-back text is released as soon as it is ruled out', () => {
  assert.deepEqual(jail(['<tool>'], ['x <to', 'ol', 'ken>']), [['x ', '', '<toolken>', ''], null]);
  assert.deepEqual(jail(['<tool>'], ['x <to', 'ol']), [['x ', '', '<tool'], null]);
});

test('include_stop_str_in_output holds nothing back and releases up to the end of the match', () => {
  assert.deepEqual(jail(['END'], ['abc E', 'N', 'Dxyz'], true), [['abc E', 'N', 'D'], 'END']);
});

test('jailed text is flushed when the engine finishes with length', async () => {
  const r = await run([{ token_ids: [DELTA] }, { token_ids: [ZETA], finish_reason: 'length' }], { stop: [' zeta eta theta'] });
  assert.deepEqual(r.steps.map((s) => s.text), [' delta', ' zeta']);
  assert.equal(r.final.finish_reason, 'length');
  assert.equal(r.localStops, 0);
});

test('max_tokens reached locally: jailed text is flushed, finish length, the engine is told to stop', async () => {
  const r = await run([{ token_ids: [DELTA, ZETA] }, { token_ids: [HI] }], { stop: [' zeta eta theta'], max_tokens: 2 });
  assert.equal(r.text, ' delta zeta');
  assert.equal(r.final.finish_reason, 'length');
  assert.equal(r.final.stop_reason, null);
  assert.equal(r.localStops, 1);
  assert.equal(r.pulled, 1);
});

test('stop strings are not checked before min_tokens', async () => {
  const table = TokenTable.fromJson(plainTokenizerJson({ x: 0, S: 1 }));
  const r = await run([{ token_ids: [0, 1, 0, 1] }], { stop: ['S'], min_tokens: 3 }, { table });
  assert.equal(r.text, 'xSx');
  assert.equal(r.final.stop_reason, 'S');
});
