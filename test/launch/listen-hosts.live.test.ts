// Every listener binds the host it is told, and the plane TLS options are checked as a whole
// before anything starts.

import assert from 'node:assert/strict';
import type { Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ConfigError, type Config } from '../../src/config/index.js';
import { natsTlsOptions, runtimeOptionsFromConfig, tcpTlsFiles } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { makePki } from '../support/certs.js';
import { serveInProcess } from '../support/in-process.js';
import { freePort } from '../support/processes.js';
import { runConfig } from '../support/run-config.js';

function config(args: string[], env: Record<string, string> = {}): Config {
  return runConfig(['mocker', ...args], env);
}

/** The addresses grpc-js bound (it keeps its HTTP/2 servers to itself). */
function grpcAddresses(server: unknown): string[] {
  const internals = server as { http2Servers: Map<Http2Server, unknown> };
  return [...internals.http2Servers.keys()].map((s) => (s.address() as AddressInfo).address);
}

test('HTTP and gRPC listen on --http-host; with --kserve-grpc-server the side metrics server does too', async () => {
  const both = await serveInProcess(['--grpc-port', String(await freePort())]);
  try {
    assert.equal((both.service.http.app.server.address() as AddressInfo).address, '127.0.0.1');
    assert.deepEqual(grpcAddresses(both.service.grpc!.grpc.server), ['127.0.0.1']);
  } finally {
    await both.service.stop();
  }
  const kserve = await serveInProcess(['--kserve-grpc-server', '--grpc-metrics-port', String(await freePort())]);
  try {
    assert.equal((kserve.service.http.app.server.address() as AddressInfo).address, '127.0.0.1');
    assert.deepEqual(grpcAddresses(kserve.service.grpc!.grpc.server), ['127.0.0.1']);
  } finally {
    await kserve.service.stop();
  }
});

test('DYN_TCP_RPC_HOST is where the runtime listens as well as what it publishes', () => {
  const options = runtimeOptionsFromConfig(config([], { DYN_TCP_RPC_HOST: '127.0.0.1' }), createLogger('silent'));
  assert.equal(options.bindHost, '127.0.0.1');
  assert.equal(options.advertiseHost, '127.0.0.1');
  assert.equal(runtimeOptionsFromConfig(config([]), createLogger('silent')).bindHost, undefined, 'all interfaces when unset');
});

test('the --tcp-tls-* and --nats-tls-* options are checked together', () => {
  const pki = makePki();
  assert.equal(tcpTlsFiles(config([])), undefined);
  assert.throws(() => tcpTlsFiles(config(['--tcp-tls-cert-path', pki.serverCert])), (e: Error) => e instanceof ConfigError && /must be given together/.test(e.message));
  assert.throws(() => tcpTlsFiles(config(['--tcp-tls-ca-cert-path', pki.caPath])), /need --tcp-tls-cert-path and --tcp-tls-key-path/);
  assert.throws(
    () => tcpTlsFiles(config(['--tcp-tls-cert-path', pki.serverCert, '--tcp-tls-key-path', pki.serverKey, '--tcp-tls-client-cert-path', pki.clientCertPath])),
    /--tcp-tls-client-cert-path and --tcp-tls-client-key-path must be given together/,
  );
  const full = tcpTlsFiles(config(['--tcp-tls-cert-path', pki.serverCert, '--tcp-tls-key-path', pki.serverKey, '--tcp-tls-client-ca-cert-path', pki.caPath]));
  assert.ok(full?.cert.length && full.key.length && full.clientCa?.length);
  assert.equal(full.ca, undefined);

  assert.equal(natsTlsOptions(config([])), undefined);
  assert.deepEqual(natsTlsOptions(config([], { NATS_TLS_CA_CERT_PATH: pki.caPath })), { caFile: pki.caPath, certFile: undefined, keyFile: undefined, insecure: false });
  assert.equal(natsTlsOptions(config(['--nats-tls-insecure']))?.insecure, true);
  assert.throws(() => natsTlsOptions(config(['--nats-tls-client-cert-path', pki.clientCertPath])), /must be given together/);
  assert.throws(() => config(['--tcp-tls-cert-path', '/nonexistent/cert.pem']), /--tcp-tls-cert-path must be an existing file/);
});
