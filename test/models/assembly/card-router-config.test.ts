// A prefill card's own router config (upstream's per-role router config): it replaces the
// frontend's settings for the prefill hop; what it leaves out takes the shared default.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../../../src/config/index.js';
import { routerSettings } from '../../../src/launch/model-settings.js';
import { cardRouterSettings } from '../../../src/models/assembly/index.js';
import { ValidationError } from '../../../src/protocols/index.js';

function frontend(args: string[]) {
  const parsed = parseCommandLine(['frontend', ...args], {});
  assert.equal(parsed.kind, 'run');
  return routerSettings((parsed as Extract<typeof parsed, { kind: 'run' }>).config);
}

test('a card without router_config routes with the frontend settings', () => {
  const settings = frontend(['--router-mode', 'kv']);
  assert.equal(cardRouterSettings({ worker_type: 'prefill' }, settings), settings);
});

test("a card's router mode and KV tuning replace the frontend's; omitted fields are the shared defaults, not the frontend's", () => {
  const settings = frontend(['--router-mode', 'kv', '--router-temperature', '0.5', '--router-kv-overlap-score-credit', '0.3']);
  const roundRobin = cardRouterSettings({ router_config: { router_mode: 'RoundRobin', kv_router_config: null } }, settings);
  assert.equal(roundRobin.mode, 'round-robin');
  const kv = cardRouterSettings({ router_config: { router_mode: 'KV', kv_router_config: { overlap_score_credit: 2, router_queue_threshold: 4 }, session_affinity_ttl_secs: 60 } }, settings);
  assert.equal(kv.mode, 'kv');
  assert.equal(kv.kv.overlapScoreCredit, 2);
  assert.equal(kv.kv.temperature, 0, 'the shared default, not the frontend --router-temperature');
  assert.equal(kv.kv.queueThreshold, 4);
  assert.deepEqual(kv.sessionAffinity, { ttlSecs: 60, mode: 'hard' });
  assert.equal(kv.kv.blockSize, settings.kv.blockSize);
  assert.equal(cardRouterSettings({ router_config: { router_mode: 'PowerOfTwoChoices' } }, settings).mode, 'power-of-two');
  assert.equal(cardRouterSettings({ router_config: { router_mode: 'least_loaded' } }, settings).mode, 'least-loaded');
});

test('a router_config dynamo-ts cannot apply is refused, saying what is wrong', () => {
  const settings = frontend(['--router-mode', 'kv']);
  assert.throws(() => cardRouterSettings({ router_config: { router_mode: 'Fancy' } }, settings), (err: unknown) => err instanceof ValidationError && /unknown router_mode "Fancy"/.test(err.message));
  assert.throws(() => cardRouterSettings({ router_config: { router_mode: 'KV', kv_router_config: { use_kv_events: 'yes' } } }, settings), /kv_router_config\.use_kv_events must be a boolean/);
  assert.throws(() => cardRouterSettings({ router_config: 'kv' }, settings), /router_config must be an object/);
});
