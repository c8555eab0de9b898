import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, type Config } from '../../../src/config/index.js';
import { mockerWorkerType } from '../../../src/launch/mocker/mocker-options.js';

function config(args: string[]): Config {
  const parsed = parseCommandLine(['mocker', ...args], {});
  if (parsed.kind !== 'run') throw new Error('expected a run command');
  return parsed.config;
}

test('the mocker role: --disaggregation-mode, its alias --worker-type, aggregated by default; a disagreement is refused', () => {
  assert.equal(mockerWorkerType(config([])), 'aggregated');
  assert.equal(mockerWorkerType(config(['--disaggregation-mode', 'agg'])), 'aggregated');
  assert.equal(mockerWorkerType(config(['--disaggregation-mode', 'prefill'])), 'prefill');
  assert.equal(mockerWorkerType(config(['--worker-type', 'decode'])), 'decode');
  assert.equal(mockerWorkerType(config(['--worker-type', 'aggregated', '--disaggregation-mode', 'agg'])), 'aggregated');
  assert.throws(() => mockerWorkerType(config(['--worker-type', 'decode', '--disaggregation-mode', 'prefill'])), /--disaggregation-mode prefill and --worker-type decode disagree/);
});
