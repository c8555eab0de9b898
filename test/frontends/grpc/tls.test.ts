// --tls-cert-path / --tls-key-path / --tls-client-ca-cert-path on both listeners of one process:
// HTTPS for the OpenAI API and TLS for KServe gRPC, with and without client certificates (mTLS).
// Certificates are made with openssl at test time.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { freePort, runCli, startProcess, type RunningProcess } from '../../support/processes.js';
import { makeClient, unary } from './harness.js';

interface Pki {
  dir: string;
  ca: Buffer;
  serverCert: string;
  serverKey: string;
  caPath: string;
  clientCert: Buffer;
  clientKey: Buffer;
}

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, all signed by the CA. */
function makePki(): Pki {
  const dir = mkdtempSync(path.join(tmpdir(), 'dynamo-tls-'));
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '1', '-subj', '/CN=dynamo-ts test CA');
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  writeFileSync(f('client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const who of ['server', 'client']) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${who}.key`), '-out', f(`${who}.csr`), '-subj', `/CN=${who === 'server' ? 'localhost' : 'test client'}`);
    openssl('x509', '-req', '-in', f(`${who}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${who}.pem`), '-days', '1', '-extfile', f(`${who}.ext`));
  }
  return {
    dir,
    ca: readFileSync(f('ca.pem')),
    caPath: f('ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: readFileSync(f('client.pem')),
    clientKey: readFileSync(f('client.key')),
  };
}

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
  for (let i = 0; i < 150; i++) {
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
