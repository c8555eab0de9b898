import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, startServe } from '../support/processes.js';

test('bad values exit 2 naming the flag', async () => {
  const { code, output } = await runCli(['serve', '--router-mode', 'fancy']);
  assert.equal(code, 2);
  assert.match(output, /^error: --router-mode must be one of .*got 'fancy'/m);
});

test('serve refuses multi-process backends instead of ignoring them', async () => {
  const { code, output } = await runCli(['serve', '--discovery-backend', 'etcd']);
  assert.equal(code, 2);
  assert.match(output, /--discovery-backend etcd does not apply to 'dynamo-ts serve'/);
});

test('--help lists options with env vars and defaults; --version prints the version', async () => {
  const help = await runCli(['serve', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.output, /--http-port <port>.*DYN_HTTP_PORT.*8000/s);
  const version = await runCli(['--version']);
  assert.match(version.output, /^dynamo-ts \d+\.\d+\.\d+/);
});

test('--dump-config-to writes the resolved config, CLI over env over default', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'dump-')), 'config.json');
  const server = await startServe(['--dump-config-to', file, '--speedup-ratio', '7'], { DYN_ROUTER_MODE: 'random', DYN_MOCKER_SPEEDUP_RATIO: '3' });
  try {
    const dumped = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.equal(dumped.routerMode, 'random');
    assert.equal(dumped.speedupRatio, 7);
    assert.equal(dumped.httpBodyLimitMb, 192);
  } finally {
    await server.proc.stop();
  }
});
