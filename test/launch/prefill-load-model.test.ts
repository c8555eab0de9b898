import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, type Config } from '../../src/config/index.js';
import { prefillTimeMs } from '../../src/engines/mocker/index.js';
import { AnalyticPrefillPredictor, prefillPredictor } from '../../src/launch/prefill-load-model.js';
import type { PrefillPredictor } from '../../src/router/index.js';
import { serveInjected } from '../support/in-process.js';
import { fetchFor } from '../support/injected-fetch.js';
import { runConfig } from '../support/run-config.js';

const AIC = ['--router-mode', 'kv', '--router-prefill-load-model', 'aic', '--aic-backend', 'vllm', '--aic-system', 'h200_sxm', '--aic-model-path', 'Qwen/Qwen3-0.6B'];

function config(args: string[]): Config {
  return runConfig(['frontend', ...args], {});
}

const fails = (args: string[], message: RegExp): void => {
  assert.throws(() => prefillPredictor(config(args)), (err: unknown) => err instanceof ConfigError && message.test(err.message));
};

test('none is the static load: no predictor', () => {
  assert.equal(prefillPredictor(config([])), null);
});

test('aic names every missing requirement, comma-joined, as upstream', () => {
  fails(['--router-prefill-load-model', 'aic'], /^--router-prefill-load-model=ais requires --router-mode kv, --ais-backend, --ais-system, --ais-model-path$/);
  fails([...AIC, '--no-router-track-prefill-tokens'], /requires --router-track-prefill-tokens$/);
  fails([...AIC, '--dyn-chat-processor', 'vllm'], /requires --dyn-chat-processor dynamo$/);
  assert.ok(prefillPredictor(config(['--load-aware', ...AIC.slice(2)])), '--load-aware implies kv');
});

test('the MoE rule tp × attention-dp == moe-tp × moe-ep is checked with the numbers', () => {
  fails([...AIC, '--aic-tp-size', '2', '--aic-moe-ep-size', '4'], /\(2 × 1 = 2\) must equal --ais-moe-tp-size × --ais-moe-ep-size \(1 × 4 = 4\)/);
  fails([...AIC, '--aic-attention-dp-size', '2'], /must equal/);
  assert.ok(prefillPredictor(config([...AIC, '--aic-tp-size', '2', '--aic-attention-dp-size', '4', '--aic-moe-tp-size', '1', '--aic-moe-ep-size', '8'])));
  assert.ok(prefillPredictor(config([...AIC, '--aic-tp-size', '8', '--aic-moe-tp-size', '8', '--aic-moe-ep-size', '1', '--aic-attention-dp-size', '1'])), 'Kimi-style TP-only MoE');
});

test('the analytic predictor is the mocker\'s prefill time over the tensor-parallel size; none for a cached prompt', () => {
  const built = prefillPredictor(config([...AIC, '--aic-tp-size', '4']));
  assert.ok(built instanceof AnalyticPrefillPredictor);
  const p: PrefillPredictor = built;
  assert.equal(p.predictMs(1000, 0), prefillTimeMs(1000) / 4);
  assert.equal(p.predictMs(0, 120), null);
});

test('serve refuses to start with incomplete aic settings, and serves with complete ones', async () => {
  await assert.rejects(serveInjected(['--router-mode', 'kv', '--router-prefill-load-model', 'aic']), /--router-prefill-load-model=ais requires --ais-backend/);
  const { service, baseUrl } = await serveInjected([...AIC, '--speedup-ratio', '50']);
  try {
    const res = await fetchFor(baseUrl)(`${baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', prompt: 'hello there', max_tokens: 3 }),
    });
    assert.equal(res.status, 200);
  } finally {
    await service.stop();
  }
});
