// A credential given as a flag sits in the process's command line, readable by every user of the
// host: the parse warns, naming the variable (and the key file) to use instead; never the value.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run } from './helpers.js';

test('--api-key on the command line warns once, naming DYN_API_KEYS and --api-keys-file', () => {
  const { warnings, config } = run(['frontend', '--api-key', 'sk-one', '--api-key', 'sk-two']);
  assert.deepEqual(config.apiKey, ['sk-one', 'sk-two']);
  assert.deepEqual(warnings, [
    '--api-key on the command line can be read by every user of this host (ps, /proc/<pid>/cmdline); set DYN_API_KEYS or --api-keys-file instead',
  ]);
});

test('keys from the environment, and no keys at all, warn about nothing', () => {
  assert.deepEqual(run(['frontend'], { DYN_API_KEYS: 'sk-one' }).warnings, []);
  assert.deepEqual(run(['frontend']).warnings, []);
});

test('every other secret flag gets the same warning with its own variable', () => {
  assert.deepEqual(run(['frontend', '--grpc-auth-token', 't0k']).warnings, [
    '--grpc-auth-token on the command line can be read by every user of this host (ps, /proc/<pid>/cmdline); set DYN_GRPC_AUTH_TOKEN instead',
  ]);
});
