import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPTIONS } from '../../src/config/index.js';
import { assertConfigError, run } from './helpers.js';

test('frontend and mocker run on the upstream defaults: etcd discovery, tcp request plane', () => {
  for (const command of ['frontend', 'mocker']) {
    const { config } = run([command]);
    assert.equal(config.discoveryBackend, 'etcd');
    assert.equal(config.requestPlane, 'tcp');
    assert.equal(config.eventPlane, undefined, 'unset: nats with etcd, zmq with file/mem, chosen by the runtime');
  }
  assert.equal(run(['frontend', '--discovery-backend', 'kubernetes']).config.discoveryBackend, 'kubernetes', 'kubernetes discovery is built');
});

test('not-built enum values fail naming the flag and value', () => {
  assertConfigError(['frontend', '--response-plane', 'quic'], {}, /^--response-plane quic is not supported yet/);
});

test('--request-plane http: upstream removed that plane, and the answer says so', () => {
  assertConfigError(['frontend', '--request-plane', 'http'], {}, /^--request-plane http is no longer available: upstream removed the HTTP request plane .*'tcp' or 'nats'/);
  assertConfigError(['mocker'], { DYN_REQUEST_PLANE: 'http' }, /^DYN_REQUEST_PLANE http is no longer available/);
});

test('ETCD_LEASE_TTL is the lease TTL (default 10); the local DYN_LEASE_TTL_SECS is gone', () => {
  assert.equal(run(['mocker']).config.etcdLeaseTtl, 10);
  assert.equal(run(['frontend'], { ETCD_LEASE_TTL: '3' }).config.etcdLeaseTtl, 3);
  assert.equal(run(['mocker'], { DYN_LEASE_TTL_SECS: '3' }).config.etcdLeaseTtl, 10);
  assertConfigError(['mocker'], { ETCD_LEASE_TTL: 'soon' }, /^ETCD_LEASE_TTL must be an integer/);
});

test('the mocker roles and data-parallel ranks are built; --worker-type is an alias of --disaggregation-mode', () => {
  assert.equal(run(['mocker', '--disaggregation-mode', 'prefill']).config.disaggregationMode, 'prefill');
  assert.equal(run(['mocker', '--worker-type', 'decode']).config.workerType, 'decode');
  assert.equal(run(['mocker', '--data-parallel-size', '4']).config.dataParallelSize, 4);
  assert.equal(run(['frontend', '--decode-fallback']).config.decodeFallback, true);
  assertConfigError(['mocker', '--disaggregation-mode', 'both'], {}, /--disaggregation-mode must be one of agg, prefill, decode/);
});

test('not-built options set from env name the env var', () => {
  assertConfigError(['frontend'], { DYN_RESPONSE_PLANE: 'quic' }, /^DYN_RESPONSE_PLANE=quic is not supported yet/);
});

test('DYN_ENABLE_RL and DYN_RL_PORT are built: they start', () => {
  const { config } = run(['serve'], { DYN_RL_PORT: '9000', DYN_ENABLE_RL: 'true' });
  assert.equal(config.rlPort, 9000);
  assert.equal(config.enableRl, true);
});

test('explicit settings are reported before a failing default', () => {
  assertConfigError(['frontend', '--response-plane', 'quic'], { DYN_RESPONSE_PLANE: 'tcp' }, /^--response-plane quic is not supported yet/);
});

test('not-built options set to their default value pass', () => {
  const { config } = run(['serve', '--no-kserve-grpc-server', '--data-parallel-size', '1', '--router-kv-events', '--grpc-metrics-port', '8788'],
    { DYN_ENABLE_ANTHROPIC_API: 'false', DYN_ROUTER_MODE: 'round-robin' });
  assert.equal(config.kserveGrpcServer, false);
  assert.equal(config.enableAnthropicApi, false);
  assert.equal(config.routerKvEvents, true);
});

test('--migration-limit: unset leaves each card its own limit; set, it applies frontend-wide', () => {
  assert.equal(run(['frontend']).config.migrationLimit, undefined);
  assert.equal(run(['frontend', '--migration-limit', '3']).config.migrationLimit, 3);
  assert.equal(run(['mocker'], { DYN_MIGRATION_LIMIT: '2' }).config.migrationLimit, 2);
  assert.equal(run(['frontend', '--migration-max-seq-len', '4096']).config.migrationMaxSeqLen, 4096);
  assertConfigError(['frontend', '--migration-limit', '-1'], {}, /migration-limit/);
});

test('built router modes are accepted', () => {
  for (const mode of ['round-robin', 'random', 'direct', 'kv', 'least-loaded', 'power-of-two', 'device-aware-weighted']) {
    assert.equal(run(['serve', '--router-mode', mode]).config.routerMode, mode);
  }
});

test('deprecated options warn instead of failing and are absent from Config', () => {
  const result = run(['serve', '--enforce-disagg'], { DYN_ROUTER_DURABLE_KV_EVENTS: '1' });
  assert.deepEqual(result.warnings, [
    '--enforce-disagg is deprecated and ignored',
    'DYN_ROUTER_DURABLE_KV_EVENTS is deprecated and ignored; the event-plane local indexer replaces it',
  ]);
  assert.ok(!('enforceDisagg' in result.config));
  assert.deepEqual(run(['serve']).warnings, []);
});

test('--admission-control takes none or token-capacity', () => {
  assert.equal(run(['serve', '--admission-control', 'token-capacity']).config.admissionControl, 'token-capacity');
  assertConfigError(['serve', '--admission-control', 'bogus'], {}, /^--admission-control must be one of none, token-capacity/);
});

test('the brief\'s not-built list is reflected in the table', () => {
  const built = (key: string) => OPTIONS.find((spec) => spec.key === key)!.built;
  for (const key of ['httpHost', 'httpPort', 'tlsCertPath', 'tlsKeyPath', 'tlsClientCaCertPath', 'modelPath', 'modelName', 'namespace', 'metricsPrefix', 'dumpConfigTo', 'log', 'numWorkers', 'kvCacheBlockSize', 'activeDecodeBlocksThreshold', 'routerSnapshotThreshold', 'routerResetStates', 'enableAnthropicApi', 'stripAnthropicPreamble', 'migrationLimit', 'migrationMaxSeqLen', 'routerMinInitialWorkers', 'plannerProfileData', 'extraEngineArgs', 'serveIndexer', 'routerSessionAffinityTtlSecs']) {
    assert.equal(built(key), true, key);
  }
  for (const key of ['enableRl', 'rlPort', 'enableRlEndpoints', 'rlComponent', 'rlRequestTimeoutSecs']) {
    assert.equal(built(key), true, key);
  }
});
