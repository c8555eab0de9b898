import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, type Config } from '../../src/config/index.js';
import { prefillTimeMs } from '../../src/engines/mocker/index.js';
import { prefillPredictor } from '../../src/launch/prefill-load-model.js';
import { runConfig } from '../support/run-config.js';

type Env = Record<string, string | undefined>;
const AIS = ['--router-mode', 'kv', '--router-prefill-load-model', 'ais'];
const FLAT = ['--ais-backend', 'vllm', '--ais-system', 'h200_sxm', '--ais-model-path', 'Qwen/Qwen3-0.6B'];

function config(args: string[], env: Env = {}): Config {
  return runConfig(['frontend', ...args], env);
}

function predicted(args: string[], env: Env = {}): number | null | undefined {
  return prefillPredictor(config(args, env), env)?.predictMs(1000, 0);
}

function refused(args: string[], env: Env, message: RegExp): void {
  assert.throws(() => prefillPredictor(config(args, env), env), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    assert.match(err.message, message);
    assert.doesNotMatch(err.message, /\n\s+at /, 'no stack in the message');
    return true;
  });
}

test('the predictor reads tp from the new names, whether given as flag, legacy flag or DYN_AIS_* env', () => {
  assert.equal(predicted([...AIS, ...FLAT, '--ais-tp-size', '4']), prefillTimeMs(1000) / 4);
  assert.equal(predicted([...AIS, ...FLAT, '--aic-tp-size', '2']), prefillTimeMs(1000) / 2);
  assert.equal(predicted([...AIS, ...FLAT], { DYN_AIS_TP_SIZE: '8' }), prefillTimeMs(1000) / 8);
  assert.equal(predicted([...AIS, ...FLAT, '--ais-tp-size', '2'], { DYN_AIS_TP_SIZE: '8' }), prefillTimeMs(1000) / 2, 'the flag wins over the env');
  assert.equal(predicted(['--router-mode', 'kv', '--router-prefill-load-model', 'aic', ...FLAT]), prefillTimeMs(1000));
});

test('a retired DYN_AIC_* variable is refused where the perf model is used, all of them named', () => {
  refused([...AIS, ...FLAT], { DYN_AIC_TP_SIZE: '2', DYN_AIC_BACKEND: 'vllm' },
    /^renamed environment variables are no longer read: DYN_AIC_BACKEND, DYN_AIC_TP_SIZE; use the DYN_AIS_\* names$/);
  assert.equal(prefillPredictor(config([], { DYN_AIC_TP_SIZE: '2' }), { DYN_AIC_TP_SIZE: '2' }), null, 'unused: not refused');
});

test('--ais-perf-config takes an inline JSON object', () => {
  const json = JSON.stringify({ backend: 'vllm', system: 'h200_sxm', model: 'Qwen/Qwen3-0.6B', worker_type: 'prefill', tp: 4 });
  assert.equal(predicted([...AIS, '--ais-perf-config', json]), prefillTimeMs(1000) / 4);
  assert.equal(predicted([...AIS], { DYN_AIS_PERF_CONFIG: json }), prefillTimeMs(1000) / 4);
  refused([...AIS, '--ais-perf-config', '{"backend": "vllm", "system": "h200_sxm", "model": "m"}'], {}, /^AIS perf config requires worker_type$/);
  refused([...AIS, '--ais-perf-config', '{"backend": '], {}, /^--ais-perf-config: cannot read AIS perf config/);
});

test('--ais-perf-config reads a YAML file, and a bad file is refused naming the flag', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ais-perf-'));
  const good = join(dir, 'perf.yaml');
  writeFileSync(good, 'backend: sglang\nsystem: h200_sxm\nmodel: Qwen/Qwen3-0.6B\nworker_type: aggregated\ntp: 2\nmoe_tp_size: 1\nmoe_ep_size: 2\n');
  assert.equal(predicted([...AIS, '--ais-perf-config', good]), prefillTimeMs(1000) / 2);
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'backend: [unclosed\n');
  refused([...AIS, '--ais-perf-config', broken], {}, /^--ais-perf-config: cannot read AIS perf config '.*broken\.yaml': /);
  refused([...AIS, '--ais-perf-config', join(dir, 'absent.yaml')], {}, /^--ais-perf-config: cannot read AIS perf config '.*absent\.yaml': ENOENT/);
  const list = join(dir, 'list.yaml');
  writeFileSync(list, '- backend\n');
  refused([...AIS, '--ais-perf-config', list], {}, /must contain an object$/);
  const moe = join(dir, 'moe.yaml');
  writeFileSync(moe, 'backend: vllm\nsystem: s\nmodel: m\nworker_type: aggregated\ntp: 2\nmoe_ep_size: 4\n');
  refused([...AIS, '--ais-perf-config', moe], {}, /\(2 × 1 = 2\) must equal/);
});

test('--ais-perf-config cannot be combined with the flat identity flags of either spelling', () => {
  const json = '{"backend": "vllm", "system": "s", "model": "m", "worker_type": "aggregated"}';
  refused([...AIS, '--ais-perf-config', json, '--aic-tp-size', '2'], {}, /^--ais-perf-config cannot be combined with flat --ais-\* \/ --aic-\* identity flags$/);
  refused([...AIS, '--ais-perf-config', json], { DYN_AIS_BACKEND: 'vllm' }, /cannot be combined/);
});
