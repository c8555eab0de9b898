// The fast BPE encoder writes each call's ids into an array it keeps: every answer must still be
// an array of its own, unchanged by later calls, and a call it gives up on must leave nothing behind.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IdRun } from '../../../src/pipeline/preprocess/fast-bpe/id-run.js';
import { loadFastBpe } from '../../../src/pipeline/preprocess/index.js';
import { GPT2_PRE_TOKENIZER, syntheticTokenizerJson } from './fast-bpe-synthetic.js';

describe('IdRun', () => {
  it('answers each run as an array of its own and starts over', () => {
    const run = new IdRun();
    run.pushAll([1, 2, 3]);
    run.push(4);
    assert.equal(run.length, 4);
    assert.equal(run.at(1), 2);
    assert.deepEqual(run.slice(2), [3, 4]);
    const first = run.take();
    assert.equal(run.length, 0);
    run.push(9);
    const second = run.take();
    assert.deepEqual(first, [1, 2, 3, 4]);
    assert.deepEqual(second, [9]);
  });

  it('drops what a reset run held', () => {
    const run = new IdRun();
    run.pushAll([5, 6]);
    run.reset();
    run.push(7);
    assert.deepEqual(run.take(), [7]);
  });
});

describe('fast BPE encoder answers', () => {
  const load = loadFastBpe(syntheticTokenizerJson({ preTokenizer: GPT2_PRE_TOKENIZER, seed: 1 }));
  assert.ok(load.ok);
  const encoder = load.encoder;

  it('are not changed by later calls', () => {
    const a = encoder.encode('hello there, general', false)!;
    const copy = [...a];
    const b = encoder.encode('something else entirely', false)!;
    assert.deepEqual(a, copy);
    assert.notEqual(a, b);
    assert.deepEqual(encoder.encode('hello there, general', false), copy);
  });

  it('start with the ids given before the text', () => {
    const whole = encoder.encode('lead and rest', false)!;
    const rest = encoder.encode(' rest', false)!;
    const lead = whole.slice(0, whole.length - rest.length);
    assert.deepEqual(encoder.encode(' rest', false, Infinity, Uint32Array.from(lead)), [...lead, ...rest]);
  });

  it('after a call given up on, hold only their own ids', () => {
    assert.equal(encoder.encode('x y z w v', false, 0), null);
    assert.deepEqual(encoder.encode('hello there, general', false), encoder.encode('hello there, general', false));
  });
});
