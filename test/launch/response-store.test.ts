import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, type Config } from '../../src/config/index.js';
import { responseStoreChoice, withResponseStore } from '../../src/launch/response-store.js';
import { capturingLogger } from '../support/captured-logs.js';
import { runConfig } from '../support/run-config.js';

function config(...args: string[]): Config {
  return runConfig(['frontend', ...args], {});
}

test('unset, one frontend process keeps responses in memory and a pool in the shared file store', () => {
  assert.deepEqual(responseStoreChoice(config(), 1), { name: 'memory', reason: 'one frontend process' });
  assert.deepEqual(responseStoreChoice(config(), 4), { name: 'file', reason: '4 frontend processes share one store' });
});

test('a store named by --response-store is kept, except memory for a pool', () => {
  for (const name of ['memory', 'file', 'etcd', 'nats'] as const) assert.equal(responseStoreChoice(config('--response-store', name), 1).name, name);
  for (const name of ['file', 'etcd', 'nats'] as const) assert.deepEqual(responseStoreChoice(config('--response-store', name), 3), { name, reason: '--response-store' });
  assert.throws(() => responseStoreChoice(config('--response-store', 'memory'), 2), (err) => err instanceof ConfigError && /keeps responses in one process, and this frontend runs 2 .*--response-store file/.test(err.message));
});

test('the choice is logged once, with its reason and, for the file store, its directory', () => {
  const lines: Record<string, unknown>[] = [];
  const chosen = withResponseStore(config('--response-store-path', '/srv/responses'), 2, capturingLogger('info', lines));
  assert.equal(chosen.responseStore, 'file');
  assert.deepEqual(
    lines.map(({ msg, response_store, reason, path }) => ({ msg, response_store, reason, path })),
    [{ msg: 'stored responses kept in the response store', response_store: 'file', reason: '2 frontend processes share one store', path: '/srv/responses' }],
  );
});
