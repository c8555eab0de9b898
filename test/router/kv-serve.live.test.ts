// Whole-service checks in one process: kv routing over in-process mockers, `/busy_threshold`,
// and the 529 overload answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../../src/config/index.js';
import { startServe, type RunningService } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { KvRouterPolicy } from '../../src/router/index.js';
import { runConfig } from '../support/run-config.js';

const MODEL = 'Qwen/Qwen3-0.6B';

async function serve(args: string[]): Promise<{ service: RunningService; base: string }> {
  const config = runConfig(['serve', '--http-host', '127.0.0.1', '--http-port', '0', ...args], {});
  const service = await startServe(config, createLogger('silent'));
  return { service, base: `http://127.0.0.1:${service.port}` };
}

const post = (base: string, path: string, body: unknown, contentType = 'application/json') =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('kv mode: requests sharing a long prefix land on the same worker', async () => {
  const { service, base } = await serve(['--num-workers', '3', '--router-mode', 'kv', '--block-size', '16', '--speedup-ratio', '100']);
  try {
    const policy = service.models.get(MODEL).router.policy;
    assert.ok(policy instanceof KvRouterPolicy);
    const system = 'You are a meticulous assistant who answers questions about the sea, ships and weather. '.repeat(30);
    const workers: bigint[] = [];
    const overlaps: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await post(base, '/v1/completions', { model: MODEL, prompt: `${system}Question ${i}: why is the sky blue?`, max_tokens: 4 });
      assert.equal(res.status, 200);
      await res.json();
      workers.push(policy.lastDecision!.workerId);
      overlaps.push(policy.lastDecision!.overlapBlocks);
    }
    assert.equal(new Set(workers).size, 1, `all on one worker: ${workers.join(', ')}`);
    assert.equal(overlaps[0], 0);
    assert.ok(overlaps.slice(1).every((o) => o >= 30), `cached prefix blocks: ${overlaps.join(', ')}`);
    assert.equal(service.engines.filter((e) => e.stats().gpuPrefixCacheHitRate > 0).length, 1);

    const other = await post(base, '/v1/completions', { model: MODEL, prompt: 'Entirely different words here. '.repeat(40), max_tokens: 4 });
    await other.json();
    assert.notEqual(policy.lastDecision!.workerId, workers[0], 'an unrelated prompt goes to an idle, empty worker');
  } finally {
    await service.stop();
  }
});

test('/busy_threshold: GET, POST, validation and 404', async () => {
  const { service, base } = await serve(['--num-workers', '1', '--active-prefill-tokens-threshold', '5000', '--enable-admin-api']);
  try {
    const none = { active_decode_blocks_threshold: null, active_prefill_tokens_threshold_frac: null };
    assert.deepEqual(await (await fetch(`${base}/busy_threshold`)).json(), {
      thresholds: [{ model: MODEL, ...none, active_prefill_tokens_threshold: 5000 }],
    });
    let res = await post(base, '/busy_threshold', { model: MODEL, active_decode_blocks_threshold: 0.8 });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      model: MODEL, active_decode_blocks_threshold: 0.8, active_prefill_tokens_threshold: 5000, active_prefill_tokens_threshold_frac: null,
    });
    res = await post(base, '/busy_threshold', { model: MODEL });
    assert.equal((await res.json() as { active_decode_blocks_threshold: number }).active_decode_blocks_threshold, 0.8, 'model only reads');
    res = await post(base, '/busy_threshold', { model: 'nope', active_decode_blocks_threshold: 0.5 });
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: "Model 'nope' not found. Thresholds can only be set for discovered models." });
    res = await post(base, '/busy_threshold', { model: MODEL, active_decode_blocks_threshold: 1.5 });
    assert.equal(res.status, 400);
    res = await post(base, '/busy_threshold', { model: MODEL, active_decode_blocks_threshold: 'high' });
    assert.equal(res.status, 422);
    assert.match((await res.json() as { error: string }).error, /^Failed to parse the request body as JSON: /);
    res = await post(base, '/busy_threshold', '{"model":');
    assert.equal(res.status, 400);
    assert.match((await res.json() as { error: string }).error, /^Failed to parse the request body as JSON: /);
    res = await post(base, '/busy_threshold', 'model=x', 'text/plain');
    assert.equal(res.status, 415);
    assert.deepEqual(await res.json(), { error: 'Expected request with Content-Type application/json' });
  } finally {
    await service.stop();
  }
});

test('the admin API can be disabled', async () => {
  const parsed = parseCommandLine(['serve', '--http-host', '127.0.0.1', '--http-port', '0'], { DYN_DISABLE_FRONTEND_ADMIN_API: 'true' });
  assert.equal(parsed.kind, 'run');
  if (parsed.kind !== 'run') return;
  const service = await startServe(parsed.config, createLogger('silent'));
  try {
    assert.equal((await fetch(`http://127.0.0.1:${service.port}/busy_threshold`)).status, 404);
  } finally {
    await service.stop();
  }
});

test('every worker busy: 529 with a message that says why', async () => {
  const { service, base } = await serve(['--num-workers', '1', '--block-size', '16', '--num-gpu-blocks-override', '100', '--active-decode-blocks-threshold', '0.05']);
  try {
    const engine = service.engines[0]!;
    const long = post(base, '/v1/completions', { model: MODEL, prompt: 'Tell me a story about the sea. '.repeat(20), max_tokens: 100, ignore_eos: true });
    await waitFor(() => engine.stats().kvActiveBlocks > 5, 'the first request to hold KV blocks');
    const res = await post(base, '/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 2 });
    assert.equal(res.status, 529);
    const body = await res.json() as { message: string; type: string; code: number };
    assert.equal(body.type, 'Overloaded');
    assert.match(body.message, /^Service temporarily overloaded: all 1 workers of model Qwen\/Qwen3-0\.6B are busy \(KV block usage .* > active_decode_blocks_threshold 0\.05\)/);
    assert.equal((await long).status, 200);
  } finally {
    await service.stop();
  }
});

test('--admission-control: token-capacity applies the busy thresholds, none clears them', async () => {
  const thresholds = ['--active-decode-blocks-threshold', '0.5', '--active-prefill-tokens-threshold', '100'];
  for (const [mode, expected] of [
    ['token-capacity', { activeDecodeBlocksThreshold: 0.5, activePrefillTokensThreshold: 100, activePrefillTokensThresholdFrac: null }],
    ['none', { activeDecodeBlocksThreshold: null, activePrefillTokensThreshold: null, activePrefillTokensThresholdFrac: null }],
  ] as const) {
    const { service } = await serve([...thresholds, '--admission-control', mode]);
    try {
      assert.deepEqual({ ...service.models.get(MODEL).router.busyThresholds }, expected, mode);
    } finally {
      await service.stop();
    }
  }
  const { service } = await serve(thresholds);
  try {
    assert.equal(service.models.get(MODEL).router.busyThresholds.activeDecodeBlocksThreshold, 0.5, 'unset: thresholds apply when given');
  } finally {
    await service.stop();
  }
});
