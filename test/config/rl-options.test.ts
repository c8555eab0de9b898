// The RL options as upstream names them: DYN_ENABLE_RL (the frontend's inference surface, the
// worker's --enable-rl), DYN_ENABLE_RL_ENDPOINTS with DYN_RL_PORT / --rl-port (default 8002),
// DYN_RL_COMPONENT and DYN_RL_REQUEST_TIMEOUT_SECS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderCommandHelp } from '../../src/config/index.js';
import { assertConfigError, run } from './helpers.js';

test('defaults: off, the admin listener on 8002 when turned on, every component, 30 s per worker', () => {
  const { config } = run(['frontend']);
  assert.equal(config.enableRl, false);
  assert.equal(config.enableRlEndpoints, false);
  assert.equal(config.rlPort, 8002);
  assert.deepEqual(config.rlComponent, []);
  assert.equal(config.rlRequestTimeoutSecs, 30);
});

test('frontend: env and flags', () => {
  const { config } = run(['frontend', '--rl-port', '9100'], {
    DYN_ENABLE_RL: 'true',
    DYN_ENABLE_RL_ENDPOINTS: '1',
    DYN_RL_COMPONENT: 'backend,prefill',
    DYN_RL_REQUEST_TIMEOUT_SECS: '2.5',
  });
  assert.equal(config.enableRl, true);
  assert.equal(config.enableRlEndpoints, true);
  assert.equal(config.rlPort, 9100);
  assert.deepEqual(config.rlComponent, ['backend', 'prefill']);
  assert.equal(config.rlRequestTimeoutSecs, 2.5);
  assert.equal(run(['frontend'], { DYN_RL_PORT: '8001' }).config.rlPort, 8001);
  assert.deepEqual(run(['frontend'], { DYN_RL_COMPONENTS: 'backend' }).config.rlComponent, ['backend'], 'the older plural spelling');
});

test('workers: --enable-rl or DYN_ENABLE_RL; the admin listener is the frontend\'s', () => {
  assert.equal(run(['mocker', '--enable-rl']).config.enableRl, true);
  assert.equal(run(['mocker'], { DYN_ENABLE_RL: 'true' }).config.enableRl, true);
  assertConfigError(['mocker', '--rl-port', '9100'], {}, /--rl-port/);
});

test('bad values are refused naming the option', () => {
  assertConfigError(['frontend', '--rl-port', '70000'], {}, /--rl-port must be an integer between 0 and 65535/);
  assertConfigError(['frontend'], { DYN_RL_REQUEST_TIMEOUT_SECS: '0' }, /DYN_RL_REQUEST_TIMEOUT_SECS/);
  assertConfigError(['frontend'], { DYN_ENABLE_RL_ENDPOINTS: 'maybe' }, /DYN_ENABLE_RL_ENDPOINTS/);
});

test('--help names them', () => {
  const help = renderCommandHelp('frontend');
  for (const name of ['--enable-rl', 'DYN_ENABLE_RL_ENDPOINTS', '--rl-port', 'DYN_RL_COMPONENT', 'DYN_RL_REQUEST_TIMEOUT_SECS']) assert.ok(help.includes(name), name);
  assert.ok(renderCommandHelp('mocker').includes('--enable-rl'));
});
