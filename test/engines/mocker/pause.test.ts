// Pausing the simulated engine (the RL `pause` op): `keep` freezes requests in flight and continues
// them on resume, `wait` lets them finish before it returns, `abort` ends them; new requests wait
// for resume in every mode. Paused requests answer as they would have unpaused (same seed, same tokens).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MockerEngine } from '../../../src/engines/mocker/index.js';
import type { KvCacheEvent, LLMEngineOutput } from '../../../src/protocols/index.js';
import { collect, fastEngine, ids, prompt, request } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Consumes a request in the background; `outs` fills as outputs arrive. */
function consume(engine: MockerEngine, maxTokens: number, seed = 1, signal?: AbortSignal) {
  const outs: LLMEngineOutput[] = [];
  let ended = false;
  const done = (async () => {
    for await (const out of engine.generate(request(prompt(20, seed), { maxTokens, seed, ignoreEos: true }), { requestId: `p${seed}`, signal: signal ?? new AbortController().signal })) outs.push(out);
    ended = true;
  })();
  return { outs, done, ended: () => ended };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(2);
}

/** A slow engine: a few milliseconds per token, so a pause lands mid-answer. */
const slowEngine = () => fastEngine({ speedupRatio: 0.5 });

test('keep: the answer stops where it is and continues on resume, token for token', async () => {
  const reference = ids(await collect(fastEngine(), request(prompt(20, 1), { maxTokens: 40, seed: 1, ignoreEos: true })));
  const engine = slowEngine();
  const run = consume(engine, 40);
  await until(() => run.outs.length >= 3);
  await engine.pause('keep');
  assert.equal(engine.pauseMode, 'keep');
  const atPause = run.outs.length;
  await sleep(150);
  assert.ok(run.outs.length <= atPause + 1, `at most the step under way lands while paused (${atPause} → ${run.outs.length})`);
  assert.equal(run.ended(), false);
  engine.resume();
  await run.done;
  assert.deepEqual(ids(run.outs), reference);
  assert.equal(run.outs.at(-1)!.finish_reason, 'length');
  engine.close();
});

test('new requests wait while paused and run after resume', async () => {
  const engine = fastEngine();
  await engine.pause('keep');
  const held = consume(engine, 5, 2);
  await sleep(100);
  assert.equal(held.outs.length, 0);
  assert.equal(engine.activeRequestCount, 0, 'not even queued');
  engine.resume();
  await held.done;
  assert.equal(held.outs.length, 5);
  engine.close();
});

test('a request given up while held never runs', async () => {
  const engine = fastEngine();
  await engine.pause('abort');
  const abort = new AbortController();
  const held = consume(engine, 5, 3, abort.signal);
  await sleep(20);
  abort.abort();
  await held.done;
  assert.deepEqual(held.outs, []);
  engine.resume();
  assert.equal(engine.activeRequestCount, 0);
  engine.close();
});

test('wait: returns once the requests in flight have finished; later ones wait for resume', async () => {
  const engine = slowEngine();
  const run = consume(engine, 20);
  await until(() => run.outs.length >= 2);
  await engine.pause('wait');
  assert.equal(engine.activeRequestCount, 0, 'pause returned once nothing was in flight');
  await run.done;
  assert.equal(run.outs.length, 20);
  assert.equal(run.outs.at(-1)!.finish_reason, 'length');
  const later = consume(engine, 3, 4);
  await sleep(60);
  assert.equal(later.outs.length, 0);
  engine.resume();
  await later.done;
  assert.equal(later.outs.length, 3);
  engine.close();
});

test('abort: requests in flight end at once with finish reason abort', async () => {
  const engine = slowEngine();
  const run = consume(engine, 200);
  await until(() => run.outs.length >= 2);
  await engine.pause('abort');
  await run.done;
  assert.ok(run.outs.length < 200);
  assert.equal(run.outs.at(-1)!.finish_reason, 'abort');
  assert.equal(run.outs.at(-1)!.completion_usage!.completion_tokens, run.outs.length - 1);
  engine.resume();
  engine.close();
});

test('clearPrefixCache drops the cached blocks no request holds and announces them', async () => {
  const events: KvCacheEvent[] = [];
  const engine = fastEngine({ blockSize: 4, onKvEvent: (e) => events.push(e) });
  await collect(engine, request(prompt(40), { maxTokens: 4, seed: 1 }));
  const dropped = engine.clearPrefixCache();
  assert.ok(dropped >= 10, `blocks dropped: ${dropped}`);
  const removed = events.at(-1)!.data as { removed: { block_hashes: bigint[] } };
  assert.equal(removed.removed.block_hashes.length, dropped);
  assert.equal(engine.clearPrefixCache(), 0);
  engine.close();
});

test('final outputs report the weight version once one is set', async () => {
  const engine = fastEngine();
  assert.equal((await collect(engine, request(prompt(8), { maxTokens: 2 }))).at(-1)!.engine_data, undefined);
  engine.weightVersion = 'step_42';
  const outs = await collect(engine, request(prompt(8), { maxTokens: 2 }));
  assert.deepEqual(outs.at(-1)!.engine_data, { weight_version: 'step_42' });
  assert.equal(outs[0]!.engine_data, undefined, 'only the final output carries it');
  engine.close();
});
