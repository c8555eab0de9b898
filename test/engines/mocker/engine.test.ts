import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MockerEngine, DEFAULT_MOCKER_OPTIONS, isCompleteUtf8, resolveMockerOptions } from '../../../src/engines/mocker/index.js';
import { ValidationError } from '../../../src/protocols/index.js';
import { EOS_ID, collect, decodeStrict, fastEngine, ids, prompt, request, source, vocab } from './helpers.js';

test('options: defaults and validation', () => {
  assert.equal(DEFAULT_MOCKER_OPTIONS.numGpuBlocks, 16384);
  assert.equal(DEFAULT_MOCKER_OPTIONS.blockSize, 64);
  assert.equal(DEFAULT_MOCKER_OPTIONS.maxNumSeqs, 256);
  assert.equal(DEFAULT_MOCKER_OPTIONS.maxNumBatchedTokens, 8192);
  assert.equal(DEFAULT_MOCKER_OPTIONS.watermark, 0.01);
  assert.deepEqual(resolveMockerOptions({ blockSize: 16, watermark: undefined }).blockSize, 16);
  assert.throws(() => resolveMockerOptions({ speedupRatio: 0 }), ValidationError);
  assert.throws(() => resolveMockerOptions({ decodeSpeedupRatio: -1 }), /decodeSpeedupRatio/);
  assert.throws(() => resolveMockerOptions({ blockSize: 0 }), /blockSize/);
  assert.throws(() => resolveMockerOptions({ watermark: 1 }), /watermark/);
  assert.throws(() => new MockerEngine({ vocab, maxNumBatchedTokens: 8, maxNumSeqs: 16 }), /maxNumBatchedTokens/);
});

test('same seed and prompt give the same tokens; other seeds differ; no seed is deterministic', async () => {
  const engine = fastEngine();
  const p = prompt(40);
  const a = ids(await collect(engine, request(p, { seed: 7, maxTokens: 30 })));
  const b = ids(await collect(engine, request(p, { seed: 7, maxTokens: 30 })));
  const c = ids(await collect(engine, request(p, { seed: 8, maxTokens: 30 })));
  const d = ids(await collect(engine, request(prompt(40, 1), { seed: 7, maxTokens: 30 })));
  const e1 = ids(await collect(engine, request(p, { maxTokens: 30 })));
  const e2 = ids(await collect(engine, request(p, { maxTokens: 30 })));
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.notDeepEqual(a, d);
  assert.deepEqual(e1, e2);
  engine.close();
});

test('max_tokens ends with finish length after exactly N tokens, one token per output', async () => {
  const engine = fastEngine();
  const outs = await collect(engine, request(prompt(10), { maxTokens: 17, seed: 3 }));
  assert.equal(outs.length, 17);
  for (const o of outs) {
    assert.equal(o.token_ids.length, 1);
    assert.equal(o.index, 0);
  }
  outs.slice(0, -1).forEach((o) => assert.equal(o.finish_reason ?? null, null));
  const last = outs.at(-1)!;
  assert.equal(last.finish_reason, 'length');
  assert.deepEqual(last.completion_usage, {
    prompt_tokens: 10,
    completion_tokens: 17,
    total_tokens: 27,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  engine.close();
});

test('requests end naturally with EOS, unless ignore_eos; min_tokens delays EOS', async () => {
  const engine = fastEngine();
  for (let seed = 0; seed < 5; seed++) {
    const outs = await collect(engine, request(prompt(20), { seed }));
    const last = outs.at(-1)!;
    assert.equal(last.finish_reason, 'eos');
    assert.deepEqual(last.token_ids, [EOS_ID]);
    assert.ok(outs.length >= 32 && outs.length <= 258, `natural length ${outs.length}`);
    assert.ok(!ids(outs).slice(0, -1).includes(EOS_ID));

    const ignored = await collect(engine, request(prompt(20), { seed, ignoreEos: true, maxTokens: 300 }));
    assert.equal(ignored.length, 300);
    assert.equal(ignored.at(-1)!.finish_reason, 'length');
    assert.ok(!ids(ignored).includes(EOS_ID));

    const delayed = await collect(engine, request(prompt(20), { seed, minTokens: 280, maxTokens: 400 }));
    assert.equal(delayed.at(-1)!.finish_reason, 'eos');
    assert.ok(delayed.length > 280);
  }
  // Without any EOS id the request runs to its cap.
  const noEos = await collect(engine, request(prompt(20), { eos: false, maxTokens: 300 }));
  assert.equal(noEos.length, 300);
  engine.close();
});

test('stop_token_ids finish with stop at the first occurrence, after min_tokens', async () => {
  const engine = fastEngine();
  const p = prompt(12);
  const base = ids(await collect(engine, request(p, { seed: 11, maxTokens: 30, ignoreEos: true })));
  const target = base[9]!;
  const first = base.indexOf(target);
  const outs = await collect(engine, request(p, { seed: 11, maxTokens: 30, ignoreEos: true, stopTokenIds: [target] }));
  assert.equal(outs.length, first + 1);
  assert.equal(outs.at(-1)!.finish_reason, 'stop');
  assert.equal(outs.at(-1)!.stop_reason, target);
  assert.deepEqual(outs.at(-1)!.token_ids, [target]);

  const later = await collect(
    engine,
    request(p, { seed: 11, maxTokens: 30, ignoreEos: true, stopTokenIds: [target], minTokens: 9 }),
  );
  assert.ok(later.length > 9);
  engine.close();
});

test('output always decodes to valid UTF-8 and includes characters split over tokens', async () => {
  const engine = fastEngine();
  let splitChars = 0;
  let text = '';
  for (let seed = 0; seed < 40; seed++) {
    const tokenIds = ids(await collect(engine, request(prompt(8, seed), { seed, maxTokens: 60 })));
    const decoded = decodeStrict(tokenIds);
    assert.ok(!decoded.includes('\uFFFD'));
    text += decoded;
    splitChars += tokenIds.filter((id) => !source.specialIds.has(id) && !isCompleteUtf8(source.tokenBytes(id)!)).length;
  }
  assert.ok(splitChars > 0, 'expected at least one multi-token character');
  assert.ok(/ [a-zA-Z]+/.test(text));
  engine.close();
});

test('vocabulary groups: words dominate, split units exist and are two tokens of valid UTF-8', () => {
  const byCategory = new Map(vocab.groups.map((g) => [g.category, g]));
  assert.ok(byCategory.get('word')!.count > 1000);
  const split = byCategory.get('split')!;
  assert.ok(split.count > 0);
  for (let u = split.first; u < split.first + Math.min(split.count, 200); u++) {
    const toks = Array.from(vocab.unitTokens.subarray(vocab.unitStart[u]!, vocab.unitStart[u + 1]!));
    assert.equal(toks.length, 2);
    assert.ok(!isCompleteUtf8(source.tokenBytes(toks[0]!)!));
    decodeStrict(toks);
  }
});
