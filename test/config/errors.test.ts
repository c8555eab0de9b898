import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, parseCommandLine } from '../../src/config/index.js';
import { assertConfigError } from './helpers.js';

test('ConfigError carries exit code 2', () => {
  const error = new ConfigError('x');
  assert.equal(error.exitCode, 2);
  assert.ok(error instanceof Error);
});

test('out-of-range port names the flag and the range', () => {
  assertConfigError(['serve', '--http-port', '70000'], {}, '--http-port must be an integer between 0 and 65535, got 70000');
});

test('unknown router mode lists the allowed values', () => {
  assertConfigError(['serve', '--router-mode', 'fancy'], {},
    "--router-mode must be one of round-robin, random, kv, direct, least-loaded, device-aware-weighted, power-of-two, got 'fancy'");
});

test('non-numeric int', () => {
  assertConfigError(['serve', '--http-port', 'abc'], {}, "--http-port must be an integer between 0 and 65535, got 'abc'");
  assertConfigError(['serve', '--max-num-seqs', '2.5'], {}, '--max-num-seqs must be an integer >= 1, got 2.5');
});

test('negative or zero where not allowed', () => {
  assertConfigError(['serve', '--num-workers', '-1'], {}, '--num-workers must be an integer >= 1, got -1');
  assertConfigError(['serve', '--speedup-ratio', '0'], {}, '--speedup-ratio must be a number > 0, got 0');
  assertConfigError(['serve', '--watermark', '1.5'], {}, '--watermark must be a number between 0 and 1, got 1.5');
});

test('unknown option, with a suggestion for a near miss', () => {
  assertConfigError(['serve', '--foo'], {}, "unknown option '--foo'");
  assertConfigError(['serve', '--http-prot', '1'], {}, "unknown option '--http-prot' (did you mean '--http-port'?)");
  assertConfigError(['serve', '-z'], {}, "unknown option '-z'");
});

test('values that come from env name the env var', () => {
  assertConfigError(['serve'], { DYN_HTTP_PORT: '70000' }, 'DYN_HTTP_PORT must be an integer between 0 and 65535, got 70000');
  assertConfigError(['serve'], { DYN_ROUTER_MODE: 'fancy' }, /^DYN_ROUTER_MODE must be one of round-robin, .*got 'fancy'$/);
  assertConfigError(['serve'], { DYN_MOCKER_ENABLE_PREFIX_CACHING: 'maybe' },
    "DYN_MOCKER_ENABLE_PREFIX_CACHING must be a boolean (1/true/yes/on or 0/false/no/off), got 'maybe'");
  assertConfigError(['serve'], { DYN_HTTP_BODY_LIMIT_MB: '0' }, 'DYN_HTTP_BODY_LIMIT_MB must be an integer >= 1, got 0');
  assertConfigError(['serve'], { DYN_HTTP_SVC_CHAT_PATH: 'chat' }, "DYN_HTTP_SVC_CHAT_PATH must be a URL path starting with '/', got 'chat'");
});

test('missing values and malformed booleans', () => {
  assertConfigError(['serve', '--http-port'], {}, '--http-port requires a value <port>');
  assertConfigError(['serve', '--http-port', '--router-mode', 'random'], {}, '--http-port requires a value <port>');
  assertConfigError(['serve', '--no-enable-prefix-caching=1'], {}, '--no-enable-prefix-caching does not take a value');
  assertConfigError(['serve', '--enable-prefix-caching=maybe'], {}, /^--enable-prefix-caching must be a boolean/);
  assertConfigError(['serve', '--model-name='], {}, "--model-name must be a non-empty string, got ''");
});

test('model path must exist', () => {
  assertConfigError(['serve', '--model-path', '/definitely/not/here'], {},
    "--model-path must be an existing file or directory or a Hugging Face repository id (org/name[@rev]), got '/definitely/not/here'");
});

test('an option of the other command is refused', () => {
  assertConfigError(['frontend', '--speedup-ratio', '2'], {}, /^--speedup-ratio is a 'mocker' option; .*not 'dynamo-ts frontend'$/);
  assertConfigError(['mocker', '--http-port', '1'], {}, /^--http-port is a 'frontend' option/);
});

test('worker needs its kind; the bridge options belong to it alone', () => {
  assertConfigError(['worker', '--upstream', 'http://a:1'], {}, "'dynamo-ts worker' needs a kind of worker first: openai (got '--upstream')");
  assertConfigError(['worker', 'vllm'], {}, "'dynamo-ts worker' needs a kind of worker first: openai (got 'vllm')");
  assertConfigError(['frontend', '--upstream', 'http://a:1'], {}, "--upstream is a 'bridge' option; it applies to 'dynamo-ts worker', not 'dynamo-ts frontend'");
  assertConfigError(['worker', 'openai', '--speedup-ratio', '2'], {}, /^--speedup-ratio is a 'mocker' option; it applies to 'dynamo-ts mocker' and 'dynamo-ts serve', not 'dynamo-ts worker'$/);
  const parsed = parseCommandLine(['worker', 'openai', '--upstream', 'http://a:1', '--upstream', 'http://b:2@tcp://b:5557', '--endpoint', 'dyn://ns.up.generate'], {});
  assert.equal(parsed.kind, 'run');
  if (parsed.kind === 'run') {
    assert.equal(parsed.command, 'worker');
    assert.deepEqual(parsed.config.upstream, ['http://a:1', 'http://b:2@tcp://b:5557']);
    assert.equal(parsed.config.endpoint, 'dyn://ns.up.generate');
  }
});

test('stray arguments and bad commands', () => {
  assertConfigError(['serve', 'extra'], {}, "unexpected argument 'extra' for 'dynamo-ts serve'");
  assertConfigError(['sevre'], {}, "unknown command 'sevre' (did you mean 'serve'?); expected a command: frontend, mocker, serve, worker, bench");
  assertConfigError(['--http-port', '1'], {}, "expected a command: frontend, mocker, serve, worker, bench, before option '--http-port'");
});

test('negative numbers are accepted as values', () => {
  assertConfigError(['serve', '--router-temperature', '-1'], {}, '--router-temperature must be a number >= 0, got -1');
});
