import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Config } from '../../../src/config/index.js';
import { mockerWorkerType } from '../../../src/launch/mocker/mocker-options.js';
import { runConfig } from '../../support/run-config.js';

function config(args: string[]): Config {
  return runConfig(['mocker', ...args], {});
}

test('the mocker role: --disaggregation-mode, its alias --worker-type, aggregated by default; a disagreement is refused', () => {
  assert.equal(mockerWorkerType(config([])), 'aggregated');
  assert.equal(mockerWorkerType(config(['--disaggregation-mode', 'agg'])), 'aggregated');
  assert.equal(mockerWorkerType(config(['--disaggregation-mode', 'prefill'])), 'prefill');
  assert.equal(mockerWorkerType(config(['--worker-type', 'decode'])), 'decode');
  assert.equal(mockerWorkerType(config(['--worker-type', 'aggregated', '--disaggregation-mode', 'agg'])), 'aggregated');
  assert.throws(() => mockerWorkerType(config(['--worker-type', 'decode', '--disaggregation-mode', 'prefill'])), /--disaggregation-mode prefill and --worker-type decode disagree/);
});
