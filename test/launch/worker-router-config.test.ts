// A worker set declares how the frontend should route to it (upstream's worker router flags): with
// --router-mode (flag or env) its card carries router_config, which the frontend reads back as the
// same settings; without it the card declares nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../../src/config/index.js';
import { workerRouterConfig } from '../../src/launch/index.js';
import { routerSettings } from '../../src/launch/model-settings.js';
import { workerCardJson } from '../../src/launch/mocker/index.js';
import { cardRouterSettings } from '../../src/models/assembly/index.js';
import { loadDefaultModelCard } from '../../src/models/index.js';

function run(args: string[], env: Record<string, string> = {}) {
  const parsed = parseCommandLine(args, env);
  assert.equal(parsed.kind, 'run');
  return parsed as Extract<typeof parsed, { kind: 'run' }>;
}

const declared = (args: string[], env: Record<string, string> = {}) => {
  const { config, sources } = run(args, env);
  return workerRouterConfig(config, sources);
};

test('a worker declares a router config only when given --router-mode', () => {
  assert.equal(declared(['mocker', '--router-kv-overlap-score-credit', '0.5']), null, 'tuning alone declares nothing');
  assert.equal(declared(['worker', 'openai', '--upstream', 'http://a:1']), null);
  assert.deepEqual(declared(['mocker', '--router-mode', 'round-robin']), { router_mode: 'RoundRobin', kv_router_config: null });
  assert.deepEqual(declared(['worker', 'openai', '--upstream', 'http://a:1'], { DYN_ROUTER_MODE: 'power-of-two' }), { router_mode: 'PowerOfTwoChoices', kv_router_config: null });
});

test("the frontend reads a kv worker's declaration back as the worker's settings, not its own", () => {
  const args = ['mocker', '--router-mode', 'kv', '--router-kv-overlap-score-credit', '0.25', '--no-router-kv-events', '--router-queue-threshold', '2', '--router-queue-policy', 'wspt', '--shared-cache-multiplier', '0.3'];
  const { config: worker } = run(args);
  const routerConfig = declared(args)!;
  assert.equal(routerConfig.router_mode, 'KV');
  const frontend = routerSettings(run(['frontend', '--router-mode', 'round-robin', '--router-kv-overlap-score-credit', '0.9']).config);
  const applied = cardRouterSettings(workerCardJson(loadDefaultModelCard({ displayName: 'm' }), {}, routerConfig), frontend);
  assert.equal(applied.mode, 'kv');
  const expected = routerSettings(worker).kv;
  for (const key of ['overlapScoreCredit', 'useKvEvents', 'queueThreshold', 'queuePolicy', 'sharedCacheMultiplier', 'ttlSecs', 'trackActiveBlocks', 'hostCacheHitWeight'] as const) {
    assert.deepEqual(applied.kv[key], expected[key], key);
  }
  assert.equal(applied.kv.overlapScoreCredit, 0.25);
  assert.equal(cardRouterSettings(workerCardJson(loadDefaultModelCard({ displayName: 'm' }), {}, null), frontend), frontend, 'no declaration: the frontend settings');
});
