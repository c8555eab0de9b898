import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, type Config } from '../../../src/config/index.js';
import { upstreamsFromFlags } from '../../../src/launch/bridge/index.js';
import { runConfig } from '../../support/run-config.js';

function config(...args: string[]): Config {
  return runConfig(['worker', 'openai', ...args], {});
}

test('upstreams pair with --kv-events-endpoint by position, or carry it after @', () => {
  const specs = upstreamsFromFlags(
    config('--upstream', 'http://a:8000', '--upstream', 'http://b:8000@tcp://b:5557', '--kv-events-endpoint', 'tcp://a:5557', '--upstream-api-key', 'k'),
  );
  assert.deepEqual(specs, [
    { url: 'http://a:8000', input: 'tokens', kvEvents: 'tcp://a:5557', apiKey: 'k' },
    { url: 'http://b:8000', input: 'tokens', kvEvents: 'tcp://b:5557', apiKey: 'k' },
  ]);
});

test('bad upstreams are refused naming the value', () => {
  assert.throws(() => upstreamsFromFlags(config()), /needs at least one --upstream <url>/);
  assert.throws(() => upstreamsFromFlags(config('--upstream', 'localhost:8000')), /--upstream localhost:8000: not an http\(s\) URL/);
  assert.throws(() => upstreamsFromFlags(config('--upstream', 'nope')), /--upstream nope: not a URL/);
  assert.throws(() => upstreamsFromFlags(config('--upstream', 'http://a:1', '--kv-events-endpoint', 'a:5557')), /--kv-events-endpoint a:5557: not a tcp:\/\/HOST:PORT endpoint/);
  assert.throws(() => upstreamsFromFlags(config('--upstream', 'http://a:1', '--kv-events-endpoint', 'tcp://a:1', '--kv-events-endpoint', 'tcp://b:1')), /pair by position/);
  assert.throws(() => upstreamsFromFlags(config('--upstream', 'http://a:1@tcp://a:2', '--kv-events-endpoint', 'tcp://a:1')), /give one/);
});

test('--enable-rl is refused: the bridge cannot serve the rl endpoint, and says why', () => {
  assert.throws(() => upstreamsFromFlags(config('--upstream', 'http://a:8000', '--enable-rl')), /--enable-rl \(DYN_ENABLE_RL\): 'dynamo-ts worker openai' cannot serve the rl endpoint/);
  const parsed = parseCommandLine(['worker', 'openai', '--upstream', 'http://a:8000'], { DYN_ENABLE_RL: 'true' });
  assert.equal(parsed.kind, 'run');
  assert.throws(() => upstreamsFromFlags((parsed as Extract<typeof parsed, { kind: 'run' }>).config), /start this worker without DYN_ENABLE_RL/);
});
