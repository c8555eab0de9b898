// --tls-cert-path / --tls-key-path / --tls-client-ca-cert-path on both listeners of one process:
// HTTPS for the OpenAI API and TLS for KServe gRPC, with and without client certificates (mTLS).
// Certificates are made with openssl at test time (support/certs.ts).

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { makePki, type Pki } from '../../support/certs.js';
import { freePort, runCli, startProcess, type RunningProcess } from '../../support/processes.js';
import { makeClient, unary } from './harness.js';

function httpsGet(url: string, options: https.RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ...options, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

async function until(check: () => Promise<boolean>, proc: RunningProcess): Promise<void> {
  // A generous bound: startup under a loaded 2-core machine has taken over 20 s.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (proc.proc.exitCode !== null) break;
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not become ready:\n${proc.output()}`);
}

let pki: Pki;
before(() => {
  pki = makePki();
});
after(() => rmSync(pki.dir, { recursive: true, force: true }));

test('HTTPS and gRPC TLS with mTLS: clients with a CA-signed certificate get in, others do not', async () => {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const proc = startProcess([
    'serve', '--http-host', '127.0.0.1', '--http-port', String(httpPort), '--grpc-port', String(grpcPort),
    '--tls-cert-path', pki.serverCert, '--tls-key-path', pki.serverKey, '--tls-client-ca-cert-path', pki.caPath,
  ]);
  const withCert = { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey };
  const grpcClient = makeClient(grpcPort, grpc.credentials.createSsl(pki.ca, pki.clientKey, pki.clientCert));
  const anonymous = makeClient(grpcPort, grpc.credentials.createSsl(pki.ca));
  try {
    const models = `https://127.0.0.1:${httpPort}/v1/models`;
    await until(async () => (await httpsGet(models, withCert)).body.includes('Qwen/Qwen3-0.6B'), proc);
    assert.equal((await httpsGet(models, withCert)).status, 200);
    await assert.rejects(httpsGet(models, { ca: pki.ca }), 'HTTPS without a client certificate is refused');
    await assert.rejects(httpsGet(models, {}), 'a client that does not trust the CA refuses the server');

    await until(async () => (await unary<{ ready: boolean }>(grpcClient, 'ServerReady', {})).ready, proc);
    const res = await unary<{ live: boolean }>(grpcClient, 'ServerLive', {});
    assert.equal(res.live, true);
    await assert.rejects(unary(anonymous, 'ServerLive', {}), (e: grpc.ServiceError) => e.code === grpc.status.UNAVAILABLE);
  } finally {
    grpcClient.close();
    anonymous.close();
    await proc.stop();
  }
});

test('gRPC TLS without a client CA accepts any client that trusts the server', async () => {
  const grpcPort = await freePort();
  const metricsPort = await freePort();
  const proc = startProcess([
    'serve', '--kserve-grpc-server', '--http-host', '127.0.0.1', '--http-port', String(grpcPort), '--grpc-metrics-port', String(metricsPort),
    '--tls-cert-path', pki.serverCert, '--tls-key-path', pki.serverKey,
  ]);
  const client = makeClient(grpcPort, grpc.credentials.createSsl(pki.ca));
  const plain = makeClient(grpcPort);
  try {
    await until(async () => (await unary<{ live: boolean }>(client, 'ServerLive', {})).live, proc);
    await assert.rejects(unary(plain, 'ServerLive', {}), (e: grpc.ServiceError) => e.code === grpc.status.UNAVAILABLE);
    // The side HTTP server (metrics) is HTTPS as well.
    const metrics = await httpsGet(`https://127.0.0.1:${metricsPort}/metrics`, { ca: pki.ca });
    assert.equal(metrics.status, 200);
  } finally {
    client.close();
    plain.close();
    await proc.stop();
  }
});

test('partial or missing TLS options exit 2 naming what is wrong', async () => {
  const cert = await runCli(['serve', '--tls-cert-path', pki.serverCert]);
  assert.equal(cert.code, 2);
  assert.match(cert.output, /--tls-cert-path and --tls-key-path must be given together/);
  const ca = await runCli(['serve', '--tls-client-ca-cert-path', pki.caPath]);
  assert.equal(ca.code, 2);
  assert.match(ca.output, /--tls-client-ca-cert-path requires --tls-cert-path and --tls-key-path/);
  const useTls = await runCli(['serve', '--kserve-grpc-server', '--use-tls', '--cert-file', pki.serverCert]);
  assert.equal(useTls.code, 2);
  assert.match(useTls.output, /--use-tls needs --cert-file and --key-file/);
  const missing = await runCli(['serve', '--tls-cert-path', path.join(pki.dir, 'nope.pem'), '--tls-key-path', pki.serverKey]);
  assert.equal(missing.code, 2);
  assert.match(missing.output, /--tls-cert-path/);
});
