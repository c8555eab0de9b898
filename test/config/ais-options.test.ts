import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderCommandHelp } from '../../src/config/index.js';
import { assertConfigError, run } from './helpers.js';

const KV = ['frontend', '--router-mode', 'kv'];

test('each --ais-* flag also answers to its legacy --aic-* spelling', () => {
  for (const spelling of ['ais', 'aic']) {
    const { config, sources } = run([...KV, `--${spelling}-backend`, 'vllm', `--${spelling}-tp-size`, '4', `--${spelling}-nextn`, '2']);
    assert.equal(config.aisBackend, 'vllm');
    assert.equal(config.aisTpSize, 4);
    assert.equal(config.aisNextn, 2);
    assert.equal(sources.aisBackend, 'cli');
  }
  assert.equal(run(['frontend']).config.aisMtpSeed, 42);
});

test('one flag written in both its new and legacy spelling is refused, in either order', () => {
  assertConfigError([...KV, '--ais-system', 'a', '--aic-system', 'b'], {}, '--ais-system and --aic-system: new and legacy spellings cannot be combined');
  assertConfigError([...KV, '--aic-tp-size=2', '--ais-tp-size=2'], {}, /^--aic-tp-size and --ais-tp-size: new and legacy spellings cannot be combined$/);
  // The same spelling twice keeps the last value, as for every other flag.
  assert.equal(run([...KV, '--aic-tp-size', '2', '--aic-tp-size', '3']).config.aisTpSize, 3);
});

test('DYN_AIS_* sets the value below the flag of either spelling', () => {
  const env = { DYN_AIS_BACKEND: 'sglang', DYN_AIS_MTP_SEED: '7' };
  const fromEnv = run([...KV], env);
  assert.equal(fromEnv.config.aisBackend, 'sglang');
  assert.equal(fromEnv.sources.aisBackend, 'env');
  assert.equal(fromEnv.config.aisMtpSeed, 7);
  assert.equal(run([...KV, '--aic-backend', 'vllm'], env).config.aisBackend, 'vllm');
  assert.equal(run([...KV], { DYN_AIC_BACKEND: 'trtllm' }).config.aisBackend, undefined, 'the retired name is not read');
});

test('--router-prefill-load-model reads aic as ais, from the flag and the env', () => {
  assert.equal(run([...KV, '--router-prefill-load-model', 'aic']).config.routerPrefillLoadModel, 'ais');
  assert.equal(run([...KV, '--router-prefill-load-model=ais']).config.routerPrefillLoadModel, 'ais');
  assert.equal(run([...KV], { DYN_ROUTER_PREFILL_LOAD_MODEL: 'aic' }).config.routerPrefillLoadModel, 'ais');
  assertConfigError([...KV, '--router-prefill-load-model', 'aix'], {}, /--router-prefill-load-model must be one of/);
});

test('--help shows each flag with its legacy alias and the retired variable', () => {
  const help = renderCommandHelp('frontend');
  assert.match(help, /AISimulate Perf Model:/);
  assert.match(help, /--ais-tp-size, --aic-tp-size <int>/);
  assert.match(help, /env DYN_AIS_TP_SIZE \(DYN_AIC_TP_SIZE retired\)/);
  assert.match(help, /--ais-perf-config <json\|file>/);
});
