// Prefill mockers started with --router-mode kv declare it in their card, and the frontend routes
// its prefill hop by their declaration while its own mode stays round-robin.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../../src/config/index.js';
import { workerRouterConfig } from '../../src/launch/index.js';
import { KvRouterPolicy, PushRouter } from '../../src/router/index.js';
import { MODEL, startDisaggregated } from '../support/disaggregated.js';

const FAST = ['--router-mode', 'round-robin', '--block-size', '16', '--speedup-ratio', '100'];

function declaredBy(args: string[]): Record<string, unknown> | null {
  const parsed = parseCommandLine(['mocker', ...args], {});
  assert.equal(parsed.kind, 'run');
  const { config, sources } = parsed as Extract<typeof parsed, { kind: 'run' }>;
  return workerRouterConfig(config, sources);
}

async function prefillPolicy(prefillRouterConfig: Record<string, unknown> | null) {
  const cluster = await startDisaggregated({ prefillWorkers: 2, decodeWorkers: 1, args: FAST, prefillRouterConfig });
  try {
    const pool = cluster.frontend.models.get(MODEL).router.disaggregation.prefillPool;
    assert.ok(pool instanceof PushRouter);
    return pool.policy;
  } finally {
    await cluster.stop();
  }
}

test("the prefill hop follows the prefill workers' declared router config", async () => {
  const declared = await prefillPolicy(declaredBy(['--router-mode', 'kv', '--router-kv-overlap-score-credit', '0.25']));
  assert.ok(declared instanceof KvRouterPolicy, 'kv, as the prefill workers declare');
  assert.equal(declared.options.overlapScoreCredit, 0.25);
  const undeclared = await prefillPolicy(declaredBy([]));
  assert.ok(!(undeclared instanceof KvRouterPolicy), "without a declaration the frontend's round-robin routes the hop");
});
