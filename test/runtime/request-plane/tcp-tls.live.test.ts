// The TCP request plane over TLS (--tcp-tls-*): a worker runtime and a frontend runtime stream a
// request with and without client certificates; a frontend without TLS, or with a certificate the
// worker does not trust, gets no answer. Listeners bind the host they are told.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { before, test } from 'node:test';
import {
  CallHomeServer,
  DistributedRuntime,
  engineHandler,
  RemoteEngineClient,
  TcpRequestPlaneServer,
  type EndpointInstance,
  type RuntimeOptions,
  type TcpTls,
} from '../../../src/runtime/index.js';
import { createSocketServer, dialSocket } from '../../../src/runtime/request-plane/tcp-tls.js';
import { makePki, type Pki } from '../../support/certs.js';
import { discoverInstances, IN_PROCESS_RUNTIME } from '../../support/in-process-runtime.js';
import { HELLO, helloWorldEngine, tokensRequest, WORLD } from '../../support/scripted-engines.js';

const REQUEST = tokensRequest([1, 2, 3], 2);
const HELLO_WORLD = [HELLO, WORLD];

let pki: Pki;
let serverTls: TcpTls;
before(() => {
  pki = makePki();
  serverTls = { cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey), ca: pki.ca, handshakeTimeoutMs: 3000 };
});

const tcp = (tls?: TcpTls): RuntimeOptions => ({ ...IN_PROCESS_RUNTIME, requestPlane: 'tcp', bindHost: '127.0.0.1', tcpTls: tls });

async function discover(runtime: DistributedRuntime, namespace: string): Promise<EndpointInstance> {
  return (await discoverInstances(runtime, namespace))[0]!;
}

async function tokens(frontend: DistributedRuntime, target: EndpointInstance): Promise<number[]> {
  const ids: number[] = [];
  const client = new RemoteEngineClient(frontend.requestClient, target);
  for await (const out of client.generate(REQUEST, { requestId: 'r', signal: new AbortController().signal })) ids.push(...out.token_ids);
  return ids;
}

/** A worker runtime with `tls`, answering "Hello world"; `body` gets its discovered instance. */
async function withWorker(tls: TcpTls, body: (target: EndpointInstance, namespace: string) => Promise<void>): Promise<void> {
  const namespace = `tls-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const worker = await DistributedRuntime.create(tcp(tls));
  try {
    await worker.namespace(namespace).component('backend').endpoint('generate').serveEndpoint(engineHandler(helloWorldEngine([])));
    await body(await discover(worker, namespace), namespace);
  } finally {
    await worker.shutdown();
  }
}

async function withFrontend(tls: TcpTls | undefined, body: (frontend: DistributedRuntime) => Promise<void>): Promise<void> {
  const frontend = await DistributedRuntime.create(tcp(tls));
  try {
    await body(frontend);
  } finally {
    await frontend.shutdown();
  }
}

test('a frontend and a worker stream over TLS; a plain frontend is refused', async () => {
  await withWorker(serverTls, async (target) => {
    await withFrontend(serverTls, async (frontend) => assert.deepEqual(await tokens(frontend, target), HELLO_WORLD));
    await withFrontend(undefined, async (frontend) => {
      await assert.rejects(tokens(frontend, target), (e: Error & { httpStatus?: number }) => e.httpStatus === 503);
    });
  });
});

test('mTLS: the worker wants a client certificate its CA signed', async () => {
  const mtls: TcpTls = { ...serverTls, clientCa: pki.ca, clientCert: pki.clientCert, clientKey: pki.clientKey };
  await withWorker(mtls, async (target) => {
    await withFrontend(mtls, async (frontend) => assert.deepEqual(await tokens(frontend, target), HELLO_WORLD));
    // Trusts the worker but presents no certificate.
    await withFrontend(serverTls, async (frontend) => {
      await assert.rejects(tokens(frontend, target), (e: Error & { httpStatus?: number }) => e.httpStatus === 503);
    });
  });
});

test('a frontend that does not trust the worker certificate does not send to it', async () => {
  await withWorker(serverTls, async (target) => {
    await withFrontend({ ...serverTls, ca: readFileSync(pki.otherCaPath) }, async (frontend) => {
      await assert.rejects(tokens(frontend, target), /unreachable|closed/);
    });
  });
});

test('--tcp-tls-server-name: the certificate must name the given name, whatever address is dialed', async () => {
  // The worker's certificate names localhost and 127.0.0.1; it is dialed at 127.0.0.1.
  await withWorker(serverTls, async (target) => {
    await withFrontend({ ...serverTls, serverName: 'localhost' }, async (frontend) => assert.deepEqual(await tokens(frontend, target), HELLO_WORLD));
    await withFrontend({ ...serverTls, serverName: 'worker.elsewhere.test' }, async (frontend) => {
      await assert.rejects(tokens(frontend, target), /unreachable|closed/);
    });
  });
});

test('--tcp-tls-insecure: a worker certificate from an untrusted CA is accepted', async () => {
  await withWorker(serverTls, async (target) => {
    await withFrontend({ ...serverTls, ca: readFileSync(pki.otherCaPath), insecure: true }, async (frontend) => {
      assert.deepEqual(await tokens(frontend, target), HELLO_WORLD);
    });
  });
});

test('--tcp-tls-handshake-timeout: a listener that never finishes the handshake fails the dial within the bound', async () => {
  const held: Socket[] = [];
  const silent = createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    const started = Date.now();
    const { socket } = dialSocket('127.0.0.1', port, { ...serverTls, handshakeTimeoutMs: 300 });
    const err = await new Promise<Error>((resolve) => socket.once('error', resolve));
    assert.match(err.message, /TLS handshake with 127\.0\.0\.1:\d+ did not finish within 0\.3 s \(--tcp-tls-handshake-timeout\)/);
    assert.ok(Date.now() - started < 30_000, 'failed by the bound, not by a socket timeout');
  } finally {
    for (const socket of held) socket.destroy();
    silent.close();
  }
});

test('--tcp-tls-handshake-timeout: a listener drops a client that never starts its handshake', async () => {
  const server = createSocketServer(() => assert.fail('no connection without a handshake'), { ...serverTls, handshakeTimeoutMs: 300 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('close', () => resolve()));
  } finally {
    server.close();
  }
});

test('the request-plane and response-stream listeners bind the configured host', async () => {
  const server = new TcpRequestPlaneServer({ bindHost: '127.0.0.1', advertiseHost: '127.0.0.1', maxMessageSize: 1 << 20 });
  const callHome = new CallHomeServer({ bindHost: '127.0.0.1', advertiseHost: '127.0.0.1', maxMessageSize: 1 << 20 });
  const open = new TcpRequestPlaneServer({ advertiseHost: '127.0.0.1', maxMessageSize: 1 << 20 });
  try {
    await server.serve({ namespace: 'n', component: 'c', endpoint: 'e' }, 1n, engineHandler(helloWorldEngine([])));
    await callHome.open('ctx');
    await open.serve({ namespace: 'n', component: 'c', endpoint: 'e' }, 2n, engineHandler(helloWorldEngine([])));
    assert.equal(server.boundAddress?.address, '127.0.0.1');
    assert.equal(callHome.boundAddress?.address, '127.0.0.1');
    assert.equal(open.boundAddress?.address, '0.0.0.0', 'all interfaces when no host is set');
  } finally {
    await server.close();
    await callHome.close();
    await open.close();
  }
});
