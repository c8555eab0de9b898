// decodeStream around the stop logic: engine finishes, usage, errors, engine-decoded text, and
// the end of a stream without a finish.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drainStream, DynamoError, type LLMEngineOutput } from '../../../src/protocols/index.js';
import { choiceFinish, decodeStream, TokenTable, type DecodedStep } from '../../../src/pipeline/postprocess/index.js';
import { run, plainTokenizerJson, addedToken, fakeTable, HI, THERE, EOS, DELTA, ZETA } from './support.js';

test('engine finish reasons map to OpenAI-facing ones, keeping eos and cancelled distinguishable', async () => {
  const cases = [
    ['eos', 'stop'],
    ['stop', 'stop'],
    ['length', 'length'],
    ['cancelled', 'cancelled'],
    ['abort', 'cancelled'],
    ['content_filter', 'content_filter'],
  ] as const;
  for (const [engine, openai] of cases) {
    assert.equal(choiceFinish(engine), openai);
    const r = await run([{ token_ids: [HI] }, { token_ids: [], finish_reason: engine }]);
    assert.equal(r.final.finish_reason, openai);
    assert.equal(r.final.engine_finish_reason, engine);
    assert.equal(r.localStops, 0);
  }
});

test("the engine's own stop_reason passes through with its finish", async () => {
  const r = await run([{ token_ids: [HI, THERE], finish_reason: 'stop', stop_reason: 'there' }]);
  assert.equal(r.text, 'hithere');
  assert.equal(r.final.stop_reason, 'there');
});

test('a local stop in the step the engine also finished does not signal the engine', async () => {
  const r = await run([{ token_ids: [HI, EOS], finish_reason: 'eos' }], { stop_token_ids_hidden: [EOS] });
  assert.equal(r.text, 'hi');
  assert.equal(r.localStops, 0);
});

test('usage is counted from generated ids (hidden stop ids included) when the engine reports none', async () => {
  const r = await run([{ token_ids: [HI] }, { token_ids: [THERE, EOS] }], { stop_token_ids_hidden: [EOS] }, { promptTokens: 7 });
  assert.deepEqual(r.final.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  assert.equal(r.steps[0]!.usage, undefined);
});

test("the engine's completion_usage is passed through", async () => {
  const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 4 } };
  const r = await run([{ token_ids: [HI] }, { token_ids: [THERE], finish_reason: 'length', completion_usage: usage }], {}, { promptTokens: 99 });
  assert.deepEqual(r.final.usage, usage);
});

test('eos_token_ids stop like hidden ids unless ignore_eos', async () => {
  const stopped = await run([{ token_ids: [HI, EOS, THERE] }], {}, { eosTokenIds: [EOS] });
  assert.equal(stopped.text, 'hi');
  assert.equal(stopped.final.engine_finish_reason, 'eos');
  const ignored = await run([{ token_ids: [HI, EOS, THERE] }], { ignore_eos: true }, { eosTokenIds: [EOS] });
  assert.equal(ignored.text, 'hi</s>there');
});

test('special tokens are dropped when skip_special_tokens is on, kept when off', async () => {
  const table = TokenTable.fromJson(plainTokenizerJson({ hi: 0 }, [addedToken(1, '<|im_end|>', true), addedToken(2, '<think>', false)]));
  assert.equal((await run([{ token_ids: [2, 0, 1] }], {}, { table })).text, '<think>hi');
  assert.equal((await run([{ token_ids: [2, 0, 1] }], {}, { table, skipSpecialTokens: false })).text, '<think>hi<|im_end|>');
});

test('a stream that ends without a finish gets a synthetic stop step with the held-back text', async () => {
  const r = await run([{ token_ids: [DELTA, ZETA] }], { stop: [' zeta eta'] });
  assert.deepEqual(r.steps.map((s) => [s.text, s.finish_reason]), [[' delta', null], [' zeta', 'stop']]);
  assert.deepEqual(r.final.token_ids, []);
});

test('an unfinished UTF-8 character at the end becomes U+FFFD', async () => {
  const table = TokenTable.fromJson({
    decoder: { type: 'Sequence', decoders: [{ type: 'ByteFallback' }, { type: 'Fuse' }] },
    model: { type: 'BPE', vocab: { a: 0, '<0xE2>': 1, '<0x82>': 2 } },
  });
  const r = await run([{ token_ids: [0, 1, 2] }, { token_ids: [], finish_reason: 'length' }], {}, { table });
  assert.equal(r.text, 'a\ufffd');
});

test('engine-decoded text bypasses the detokenizer', async () => {
  const r = await run([{ token_ids: [HI], text: 'HI!', tokens: ['HI!'] }, { token_ids: [THERE], text: ' you', finish_reason: 'stop' }]);
  assert.equal(r.text, 'HI! you');
  assert.deepEqual(r.steps[0]!.tokens, ['HI!']);
});

test('steps carry the choice index, the engine ids and log probabilities', async () => {
  const r = await run([{ token_ids: [HI, THERE], log_probs: [-0.5, -1], index: 3 }]);
  assert.equal(r.steps[0]!.index, 0);
  assert.deepEqual(r.steps[0]!.token_ids, [HI, THERE]);
  assert.deepEqual(r.steps[0]!.tokens, ['hi', 'there']);
  assert.deepEqual(r.steps[0]!.log_probs, [-0.5, -1]);
});

test('an engine error finish is thrown as a typed error', async () => {
  await assert.rejects(run([{ token_ids: [HI] }, { token_ids: [], finish_reason: 'error', stop_reason: 'worker died' }]), (err) => {
    assert.ok(err instanceof DynamoError);
    assert.equal(err.httpStatus, 500);
    assert.match(err.message, /worker died/);
    return true;
  });
});

test('a decode error is thrown and the engine is told to stop', async () => {
  let stops = 0;
  async function* outputs(): AsyncGenerator<LLMEngineOutput> {
    yield { token_ids: [HI, 1_000_000] };
  }
  const stream = decodeStream(outputs(), {
    table: fakeTable,
    request: { stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] },
    promptTokens: 0,
    index: 0,
    onLocalStop: () => stops++,
  });
  await assert.rejects(async () => {
    for await (const _ of stream) void _;
  }, /decode error/);
  assert.equal(stops, 1);
});

test('an engine stream that throws propagates its error', async () => {
  async function* outputs(): AsyncGenerator<LLMEngineOutput> {
    yield { token_ids: [HI] };
    throw new Error('connection lost');
  }
  const seen: string[] = [];
  const stream = decodeStream(outputs(), {
    table: fakeTable,
    request: { stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] },
    promptTokens: 0,
    index: 2,
    onLocalStop: () => {},
  });
  await assert.rejects(async () => {
    for await (const s of stream) seen.push(`${s.index}:${s.text}`);
  }, /connection lost/);
  assert.deepEqual(seen, ['2:hi']);
});

test('pushed: the same steps as pulled, a local stop stops the engine once, errors reject', async () => {
  const outputs = [{ token_ids: [HI] }, { token_ids: [THERE, EOS, HI] }, { token_ids: [HI] }];
  const pulled = await run(outputs, { stop_token_ids_hidden: [EOS] });
  const pushed = await run(outputs, { stop_token_ids_hidden: [EOS] }, { pushed: true });
  assert.deepEqual(pushed.steps, pulled.steps);
  assert.equal(pushed.text, 'hithere');
  assert.equal(pushed.final.finish_reason, 'stop');
  assert.equal(pushed.localStops, 1);
  assert.equal(pushed.pulled, 2, 'nothing read after the stop');

  const unfinished = await run([{ token_ids: [HI] }], {}, { pushed: true });
  assert.equal(unfinished.final.finish_reason, 'stop');
  assert.equal(unfinished.text, 'hi');

  await assert.rejects(run([{ token_ids: [HI] }, { token_ids: [], finish_reason: 'error', stop_reason: 'worker died' }], {}, { pushed: true }), /worker died/);
});

test('pushed to a sink that reads in place: the same steps as pulled, one object refilled', async () => {
  const outputs = [{ token_ids: [HI] }, { token_ids: [THERE] }, { token_ids: [HI], finish_reason: 'length' as const }];
  const pulled = await run(outputs);
  const inPlace = await run(outputs, {}, { inPlace: true });
  assert.deepEqual(inPlace.steps, pulled.steps);

  const stopped = [{ token_ids: [HI] }, { token_ids: [THERE, EOS, HI] }, { token_ids: [HI] }];
  const stoppedInPlace = await run(stopped, { stop_token_ids_hidden: [EOS] }, { inPlace: true });
  assert.deepEqual(stoppedInPlace.steps, (await run(stopped, { stop_token_ids_hidden: [EOS] })).steps);
  assert.equal(stoppedInPlace.localStops, 1);

  const seen = new Set<DecodedStep>();
  const stream = decodeStream((async function* () {
    for (const out of outputs) yield out as LLMEngineOutput;
  })(), {
    table: fakeTable,
    request: { stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] },
    promptTokens: 0,
    index: 0,
  });
  await drainStream(stream, (step) => void seen.add(step), true);
  assert.equal(seen.size, 1, 'one step object for every output');
});
