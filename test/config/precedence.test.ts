import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { OPTIONS } from '../../src/config/index.js';
import { parseValue } from '../../src/config/parse-value.js';
import { scanArgs } from '../../src/config/scan-args.js';
import { assertConfigError, run } from './helpers.js';

test('defaults apply when neither CLI nor env set a value', () => {
  const { config, sources } = run(['serve']);
  assert.equal(config.httpHost, '0.0.0.0');
  assert.equal(config.httpPort, 8000);
  assert.equal(config.routerMode, 'round-robin');
  assert.equal(config.metricsPrefix, 'dynamo_frontend');
  assert.equal(config.httpBodyLimitMb, 192);
  assert.equal(config.httpGracefulShutdownTimeoutSecs, 5);
  assert.equal(config.httpOverloadStatusCode, 529);
  assert.equal(config.httpSvcChatPath, '/v1/chat/completions');
  assert.equal(config.log, 'info');
  assert.equal(config.numGpuBlocksOverride, 16384);
  assert.equal(config.blockSize, undefined, 'unset: the engine type gives it (vllm 64)');
  assert.equal(config.maxNumSeqs, 256);
  assert.equal(config.maxNumBatchedTokens, 8192);
  assert.equal(config.watermark, 0.01);
  assert.equal(config.speedupRatio, 1);
  assert.equal(config.enablePrefixCaching, true);
  assert.equal(config.numWorkers, 1);
  assert.equal(config.modelPath, undefined);
  assert.equal(config.namespace, undefined);
  assert.deepEqual(config.rejectMediaInputs, []);
  assert.equal(sources.httpPort, 'default');
});

test('serve defaults to in-process discovery and planes', () => {
  const { config, sources } = run(['serve']);
  assert.equal(config.discoveryBackend, 'mem');
  assert.equal(config.requestPlane, 'inproc');
  assert.equal(config.responsePlane, 'inproc');
  assert.equal(config.eventPlane, 'inproc');
  assert.equal(sources.discoveryBackend, 'default');
});

test('env overrides the default and CLI overrides env (int, string, enum, float)', () => {
  const env = { DYN_HTTP_PORT: '9001', DYN_HTTP_HOST: '127.0.0.1', DYN_ROUTER_MODE: 'random', DYN_MOCKER_SPEEDUP_RATIO: '2.5' };
  const fromEnv = run(['serve'], env);
  assert.equal(fromEnv.config.httpPort, 9001);
  assert.equal(fromEnv.config.httpHost, '127.0.0.1');
  assert.equal(fromEnv.config.routerMode, 'random');
  assert.equal(fromEnv.config.speedupRatio, 2.5);
  assert.equal(fromEnv.sources.httpPort, 'env');

  const fromCli = run(['serve', '--http-port', '9002', '--http-host=::1', '--router-mode', 'direct', '--speedup-ratio=10'], env);
  assert.equal(fromCli.config.httpPort, 9002);
  assert.equal(fromCli.config.httpHost, '::1');
  assert.equal(fromCli.config.routerMode, 'direct');
  assert.equal(fromCli.config.speedupRatio, 10);
  assert.equal(fromCli.sources.httpPort, 'cli');
  assert.equal(fromCli.sources.routerMode, 'cli');
});

test('a CLI value wins even when the env value for the same option is invalid', () => {
  const { config } = run(['serve', '--http-port', '8080'], { DYN_HTTP_PORT: 'not-a-port' });
  assert.equal(config.httpPort, 8080);
});

test('an empty env var counts as unset', () => {
  const { config, sources } = run(['serve'], { DYN_HTTP_PORT: '' });
  assert.equal(config.httpPort, 8000);
  assert.equal(sources.httpPort, 'default');
});

test('negatable booleans: --x, --no-x, --x=value, and CLI over env', () => {
  assert.equal(run(['serve', '--no-enable-prefix-caching']).config.enablePrefixCaching, false);
  assert.equal(run(['serve', '--enable-prefix-caching'], { DYN_MOCKER_ENABLE_PREFIX_CACHING: 'off' }).config.enablePrefixCaching, true);
  assert.equal(run(['serve', '--enable-chunked-prefill=false']).config.enableChunkedPrefill, false);
  assert.equal(run(['serve', '--no-enable-chunked-prefill', '--enable-chunked-prefill']).config.enableChunkedPrefill, true);
});

test('booleans from env accept 1/true/yes/on and 0/false/no/off in any case', () => {
  for (const word of ['1', 'true', 'YES', 'On']) {
    assert.equal(run(['serve'], { DYN_DISABLE_FRONTEND_NVEXT: word }).config.disableFrontendNvext, true, word);
  }
  for (const word of ['0', 'False', 'no', 'OFF']) {
    assert.equal(run(['serve'], { DYN_MOCKER_ENABLE_PREFIX_CACHING: word }).config.enablePrefixCaching, false, word);
  }
});

test('env-only knobs are read from the environment', () => {
  const { config, sources } = run(['serve'], {
    DYN_HTTP_BODY_LIMIT_MB: '1',
    DYN_HTTP_GRACEFUL_SHUTDOWN_TIMEOUT_SECS: '0',
    DYN_HTTP_OVERLOAD_STATUS_CODE: '503',
    DYN_ENABLE_FORCE_INCLUDE_USAGE: 'true',
    DYN_IGNORE_OPENAI_FE_UNSUPPORTED_FIELDS: '1',
    DYN_CONTEXT_WINDOW: '32768',
    DYN_MAX_OUTPUT_TOKENS: '4096',
    DYN_DISABLE_FRONTEND_ADMIN_API: 'yes',
    DYN_HTTP_SVC_CHAT_PATH: '/chat',
    DYN_LOG: 'debug',
  });
  assert.equal(config.httpBodyLimitMb, 1);
  assert.equal(config.httpGracefulShutdownTimeoutSecs, 0);
  assert.equal(config.httpOverloadStatusCode, 503);
  assert.equal(config.enableForceIncludeUsage, true);
  assert.equal(config.ignoreOpenaiFeUnsupportedFields, true);
  assert.equal(config.contextWindow, 32768);
  assert.equal(config.maxOutputTokens, 4096);
  assert.equal(config.disableFrontendAdminApi, true);
  assert.equal(config.httpSvcChatPath, '/chat');
  assert.equal(config.log, 'debug');
  assert.equal(sources.log, 'env');
});

test('shared options: model path, name, namespace, block size', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dynamo-ts-config-'));
  const { config } = run(['serve', '--model-path', dir, '--model-name', 'my-model', '--namespace', 'ns1', '--kv-cache-block-size', '16'], {});
  assert.equal(config.modelPath, dir);
  assert.equal(config.modelName, 'my-model');
  assert.equal(config.namespace, 'ns1');
  assert.equal(config.kvCacheBlockSize, 16);
});

test('mocker engine flags and --num-workers', () => {
  const { config } = run([
    'serve', '--num-workers', '4', '--num-gpu-blocks-override', '100', '--block-size', '16', '--max-num-seqs', '8',
    '--max-num-batched-tokens', '2048', '--watermark', '0', '--decode-speedup-ratio', '3', '--startup-time', '0.5',
    '--endpoint', 'dyn://ns.backend.generate',
  ]);
  assert.equal(config.numWorkers, 4);
  assert.equal(config.numGpuBlocksOverride, 100);
  assert.equal(config.blockSize, 16);
  assert.equal(config.maxNumSeqs, 8);
  assert.equal(config.maxNumBatchedTokens, 2048);
  assert.equal(config.watermark, 0);
  assert.equal(config.decodeSpeedupRatio, 3);
  assert.equal(config.startupTime, 0.5);
  assert.equal(config.endpoint, 'dyn://ns.backend.generate');
});

test('the last occurrence of a repeated scalar flag wins', () => {
  assert.equal(run(['serve', '--http-port', '1', '--http-port', '2']).config.httpPort, 2);
});

const IN_PROCESS = ['--discovery-backend', 'mem', '--request-plane', 'inproc', '--response-plane', 'inproc', '--event-plane', 'inproc'];

test('frontend with in-process planes runs; mocker options keep defaults and their env vars are not read', () => {
  const { command, config, sources } = run(['frontend', ...IN_PROCESS], { DYN_MOCKER_NUM_WORKERS: 'abc' });
  assert.equal(command, 'frontend');
  assert.equal(config.numWorkers, 1);
  assert.equal(sources.numWorkers, 'default');
  assert.equal(config.discoveryBackend, 'mem');
});

test('serve reads the mocker env vars', () => {
  const { config, sources } = run(['serve'], { DYN_MOCKER_NUM_WORKERS: '2' });
  assert.equal(config.numWorkers, 2);
  assert.equal(sources.numWorkers, 'env');
});

test('list options: repeatable on the CLI, space/comma separated in env', () => {
  const spec = OPTIONS.find((option) => option.key === 'frontendRouteExtension')!;
  const settings = scanArgs('frontend', ['--frontend-route-extension', 'a:f', '--frontend-route-extension=b:g']);
  assert.deepEqual(settings.get(spec)?.value, ['a:f', 'b:g']);
  assert.deepEqual(parseValue(spec, 'a:f b:g,c:h', spec.env), ['a:f', 'b:g', 'c:h']);
});

test("path variables also answer to the '_ENV' spellings users copy from upstream's docs table", () => {
  const { config, sources } = run(['serve'], { DYN_HTTP_SVC_CHAT_PATH_ENV: '/custom/chat' });
  assert.equal(config.httpSvcChatPath, '/custom/chat');
  assert.equal(sources.httpSvcChatPath, 'env');
  // The documented name wins over its alias.
  const both = run(['serve'], { DYN_HTTP_SVC_CHAT_PATH: '/a', DYN_HTTP_SVC_CHAT_PATH_ENV: '/b' });
  assert.equal(both.config.httpSvcChatPath, '/a');
});

test('an invalid value under an alias is reported under the name that was set', () => {
  assertConfigError(['serve'], { DYN_HTTP_SVC_MODELS_PATH_ENV: 'models' }, /DYN_HTTP_SVC_MODELS_PATH_ENV/);
});
