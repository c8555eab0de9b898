// NATS over TLS (--nats-tls-*): a nats-server started with a certificate made at test time; the
// runtime's request and event planes connect with the CA option, with a client certificate when
// the server verifies clients, and without verification when told; others are refused.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  closeNatsConnections,
  DistributedRuntime,
  engineHandler,
  natsConnection,
  RemoteEngineClient,
  type EndpointInstance,
  type NatsTls,
} from '../../src/runtime/index.js';
import { makePki, type Pki } from '../support/certs.js';
import { eventually } from '../support/in-process.js';
import { discoverInstances, IN_PROCESS_RUNTIME } from '../support/in-process-runtime.js';
import { startNats, type InfraServer } from '../support/infra-servers.js';
import { HELLO, helloWorldEngine, tokensRequest, WORLD } from '../support/scripted-engines.js';

let pki: Pki;
let nats: InfraServer;
let verifying: InfraServer;

before(async () => {
  pki = makePki();
  nats = await startNats({ tls: { cert: pki.serverCert, key: pki.serverKey } });
  verifying = await startNats({ tls: { cert: pki.serverCert, key: pki.serverKey, verifyClientsCa: pki.caPath } });
});

after(async () => {
  await closeNatsConnections();
  await nats.dispose();
  await verifying.dispose();
});

async function discover(runtime: DistributedRuntime, namespace: string): Promise<EndpointInstance> {
  return (await discoverInstances(runtime, namespace))[0]!;
}

test('request and event planes over NATS with TLS, verified with the CA option', async () => {
  const options = { ...IN_PROCESS_RUNTIME, requestPlane: 'nats' as const, eventPlane: 'nats' as const, natsServer: nats.url, natsTls: { caFile: pki.caPath } };
  const namespace = `nats-tls-${Date.now()}`;
  const worker = await DistributedRuntime.create(options);
  const frontend = await DistributedRuntime.create(options);
  try {
    await worker.namespace(namespace).component('backend').endpoint('generate').serveEndpoint(engineHandler(helloWorldEngine([])));
    const target = await discover(frontend, namespace);
    assert.ok('nats_tcp' in target.transport);
    const ids: number[] = [];
    const client = new RemoteEngineClient(frontend.requestClient, target);
    for await (const out of client.generate(tokensRequest([1, 2], 2), { requestId: 'r', signal: new AbortController().signal })) ids.push(...out.token_ids);
    assert.deepEqual(ids, [HELLO, WORLD]);

    const got: string[] = [];
    const unsubscribe = await frontend.events.subscribe(`${namespace}.kv`, (payload) => got.push(payload.toString()));
    await eventually(() => {
      worker.events.publish(`${namespace}.kv`, 'event over TLS');
      return got.length > 0;
    }, 60_000, 'an event');
    assert.equal(got[0], 'event over TLS');
    unsubscribe();
  } finally {
    await worker.shutdown();
    await frontend.shutdown();
  }
});

/** Whether a connection with `tls` succeeds against `server`. */
async function connects(server: InfraServer, tls?: NatsTls): Promise<boolean> {
  try {
    const nc = await natsConnection(server.url, tls);
    await nc.flush();
    return true;
  } catch {
    return false;
  }
}

test('without the CA the server certificate is refused, unless verification is off', async () => {
  assert.equal(await connects(nats), false, 'no TLS options: the test CA is not trusted');
  assert.equal(await connects(nats, { caFile: pki.otherCaPath }), false, 'a CA that did not sign it');
  assert.equal(await connects(nats, { insecure: true }), true, '--nats-tls-insecure');
});

test('a server that verifies clients takes the client certificate options', async () => {
  assert.equal(await connects(verifying, { caFile: pki.caPath }), false, 'no client certificate');
  assert.equal(await connects(verifying, { caFile: pki.caPath, certFile: pki.clientCertPath, keyFile: pki.clientKeyPath }), true);
});
