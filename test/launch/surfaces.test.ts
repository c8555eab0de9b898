import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, type Config } from '../../src/config/index.js';
import { adminApiServed, nvextRead } from '../../src/launch/surfaces.js';

function config(argv: string[], env: Record<string, string> = {}): Config {
  const parsed = parseCommandLine(['serve', ...argv], env);
  assert.equal(parsed.kind, 'run');
  return (parsed as Extract<typeof parsed, { kind: 'run' }>).config;
}

test('the admin API and nvext are on by default, as upstream serves them', () => {
  assert.equal(adminApiServed(config([])), true);
  assert.equal(nvextRead(config([])), true);
});

test('either spelling turns a surface off: DYN_ENABLE_FRONTEND_*=false or DYN_DISABLE_FRONTEND_*', () => {
  assert.equal(adminApiServed(config([], { DYN_ENABLE_FRONTEND_ADMIN_API: 'false' })), false);
  assert.equal(adminApiServed(config([], { DYN_DISABLE_FRONTEND_ADMIN_API: '1' })), false);
  assert.equal(adminApiServed(config(['--no-enable-admin-api'])), false);
  assert.equal(adminApiServed(config([], { DYN_ENABLE_FRONTEND_ADMIN_API: 'true', DYN_DISABLE_FRONTEND_ADMIN_API: 'yes' })), false, 'the opt-out wins');
  assert.equal(nvextRead(config([], { DYN_ENABLE_FRONTEND_NVEXT: '0' })), false);
  assert.equal(nvextRead(config([], { DYN_DISABLE_FRONTEND_NVEXT: 'on' })), false);
});
