import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActiveSequences, PrefillTracker, type PrefillPredictor } from '../../../src/router/kv/index.js';
import { KvRouterPolicy, PushRouter, type WorkerInstance } from '../../../src/router/index.js';
import type { LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';

const S = 1000;

test('the reference numbers: (100 tok, 10 s) then (60 tok, 6 s) 2 s later give 140 at 2 s, 110 at 5 s, 40 at 12 s', () => {
  const t = new PrefillTracker();
  t.add('a', 100, 10 * S, 0);
  t.add('b', 60, 6 * S, 2 * S);
  assert.equal(t.load(2 * S), 140);
  assert.equal(t.load(5 * S), 110);
  assert.equal(t.load(12 * S), 40, 'the backlog keeps draining at the anchor\'s rate past its own duration');
  assert.equal(t.load(30 * S), 0, 'floored at 0');
});

test('with the second request unmodeled only the anchor decays: 60 at 12 s', () => {
  const t = new PrefillTracker();
  t.add('a', 100, 10 * S, 0);
  t.add('b', 60, null, 2 * S);
  assert.equal(t.load(2 * S), 60 + 80);
  assert.equal(t.load(12 * S), 60);
  assert.equal(t.load(3.5 * S), 60 + Math.ceil(100 * 0.65));
});

test('the anchor completing makes the next request the anchor from now', () => {
  const t = new PrefillTracker();
  t.add('a', 100, 10 * S, 0);
  t.add('b', 60, 6 * S, 1 * S);
  t.complete('a', 4 * S);
  assert.equal(t.load(4 * S), 60, 'b starts draining only now');
  assert.equal(t.load(7 * S), 30);
  t.complete('b', 8 * S);
  assert.equal(t.load(8 * S), 0);
  assert.equal(t.size, 0);
});

test('a modeled non-anchor completing moves the anchor clock forward by its duration, capped at now', () => {
  const t = new PrefillTracker();
  t.add('a', 100, 10 * S, 0);
  t.add('b', 60, 6 * S, 0);
  t.add('c', 20, 2 * S, 0);
  t.complete('c', 1 * S);
  // anchor clock 0 → min(1 s, 0 + 2 s) = 1 s: elapsed 0 at 1 s.
  assert.equal(t.load(1 * S), 160);
  t.complete('b', 3 * S);
  // anchor clock 1 s → min(3 s, 1 s + 6 s) = 3 s.
  assert.equal(t.load(3 * S), 100);
  assert.equal(t.load(8 * S), 50);
});

test('unmodeled anchors do not decay; fully cached prompts add no load', () => {
  const t = new PrefillTracker();
  t.add('a', 50, null, 0);
  t.add('z', 0, 1 * S, 0);
  assert.equal(t.load(100 * S), 50);
  assert.equal(t.size, 1);
});

/** A predictor at 10 tokens per second, recording what it was asked. */
class TenPerSecond implements PrefillPredictor {
  readonly asked: [number, number][] = [];
  predictMs(uncached: number, cached: number): number | null {
    this.asked.push([uncached, cached]);
    return uncached > 0 ? (uncached / 10) * S : null;
  }
}

test('active sequences predict from the uncached prompt and report the decayed load', () => {
  let now = 0;
  const predictor = new TenPerSecond();
  const s = new ActiveSequences({ blockSize: 4, prefillPredictor: predictor, now: () => now });
  s.addRequest({ requestId: 'r', worker: 1n, seqHashes: null, isl: 40, overlapBlocks: 5 });
  assert.deepEqual(predictor.asked, [[20, 20]], '40 tokens, 5 blocks of 4 cached');
  assert.equal(s.activePrefillTokens(1n), 20);
  now = 1 * S;
  assert.equal(s.activePrefillTokens(1n), 10);
  s.markPrefillCompleted('r');
  assert.equal(s.activePrefillTokens(1n), 0);
  s.addRequest({ requestId: 'q', worker: 1n, seqHashes: null, isl: 40, overlapBlocks: 0 });
  s.free('q');
  assert.equal(s.activePrefillTokens(1n), 0, 'a request that ends before its first token leaves the tracker');
});

function request(n: number, from: number): PreprocessedRequest {
  const token_ids = Array.from({ length: n }, (_, i) => from + i);
  return { model: 'm', token_ids, stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] };
}

const silent = { async *generate(): AsyncGenerator<LLMEngineOutput> {} };

/** Sends a 400-token prompt at 0 s and a 200-token one at 30 s; returns the workers they went to. */
function longThenShort(policy: KvRouterPolicy, instances: WorkerInstance[], clock: { now: number }): { long: bigint; short: bigint; router: PushRouter } {
  const router = new PushRouter('m', policy);
  router.setInstances(instances);
  const ctx = (requestId: string) => ({ requestId, signal: new AbortController().signal });
  clock.now = 0;
  router.generate(request(400, 0), ctx('long'));
  const long = policy.lastDecision!.workerId;
  clock.now = 30 * S;
  router.generate(request(200, 10_000), ctx('short'));
  const short = policy.lastDecision!.workerId;
  clock.now = 31 * S;
  return { long, short, router };
}

test('kv routing with a prefill model: the worker whose old prefill has drained takes the next request', () => {
  const clock = { now: 0 };
  const instances: WorkerInstance[] = [1n, 2n].map((id) => ({ id, client: silent }));
  // Active blocks off: only the prompt-side term decides.
  const modeled = new KvRouterPolicy({ blockSize: 4, prefillPredictor: new TenPerSecond(), trackActiveBlocks: false, now: () => clock.now });
  const a = longThenShort(modeled, instances, clock);
  assert.notEqual(a.short, a.long, 'at 30 s the long prompt still has 100 tokens to go');
  // 40 s for 400 tokens: 90 left at 31 s; the short one (20 s) has 190 left.
  assert.equal(modeled.sequences.activePrefillTokens(a.long), 90);
  assert.equal(modeled.sequences.activePrefillTokens(a.short), 190);
  assert.equal(a.router.pick(request(40, 20_000)).id, a.long, 'the drained worker wins');

  const staticLoad = new KvRouterPolicy({ blockSize: 4, trackActiveBlocks: false, now: () => clock.now });
  const b = longThenShort(staticLoad, instances, clock);
  assert.equal(b.router.pick(request(40, 20_000)).id, b.short, 'without the model, 400 static tokens lose to 200');
});
