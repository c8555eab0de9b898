// The request-plane ping a frontend sends a silent or down worker: answered by a worker process that
// reads its request plane (ours acks it; any ack counts, as an upstream worker's rejection of the
// unknown path), unanswered by a listener whose process reads nothing (a stopped process: its kernel
// still accepts connections), by a closed port, and by a NATS subject nobody serves.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import {
  closeNatsConnections,
  DistributedRuntime,
  encodeAck,
  engineHandler,
  MultiTransportClient,
  PING_HEADER,
  RequestFrameDecoder,
  type EndpointInstance,
  type RuntimeOptions,
} from '../../../src/runtime/index.js';
import type { EngineClient } from '../../../src/protocols/index.js';
import { startNats } from '../../support/infra-servers.js';
import { discoverInstances, IN_PROCESS_RUNTIME } from '../../support/in-process-runtime.js';

const NOTHING: EngineClient = { generate: async function* () {} };
const TIMEOUT_MS = 300;

function instance(transport: EndpointInstance['transport']): EndpointInstance {
  return { namespace: 'n', component: 'c', endpoint: 'generate', instanceId: 1n, transport, requestPlaneCodec: 'json' } as EndpointInstance;
}

/** A listener on loopback whose connections get `onConnection`; resolves with its port. */
async function listener(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

test('tcp: a serving worker answers; a listener that reads nothing and a closed port do not; any ack counts', async () => {
  const ns = `ping-${Date.now()}`;
  const opts: RuntimeOptions = { ...IN_PROCESS_RUNTIME, requestPlane: 'tcp' };
  const worker = await DistributedRuntime.create(opts);
  await worker.namespace(ns).component('backend').endpoint('generate').serveEndpoint(engineHandler(NOTHING));
  const frontend = await DistributedRuntime.create(opts);
  const client = new MultiTransportClient({ natsServer: '', maxMessageSize: 1 << 20, advertiseHost: '127.0.0.1', bindHost: '127.0.0.1' });
  const silent = await listener(() => undefined);
  const headersSeen: Record<string, string>[] = [];
  const rejecting = await listener((socket) => {
    const decoder = new RequestFrameDecoder(1 << 20);
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        headersSeen.push(frame.headers);
        socket.write(encodeAck(`Server unavailable: no endpoint ${frame.path}`));
      }
    });
  });
  const closed = await listener(() => undefined);
  await new Promise((r) => closed.server.close(r));
  try {
    const [served] = await discoverInstances(frontend, ns, 1);
    assert.equal(await client.probe(served!, TIMEOUT_MS), true);
    assert.equal(await client.probe(served!, TIMEOUT_MS), true, 'again, on the same connection');
    assert.equal(await client.probe(instance({ tcp: `127.0.0.1:${silent.port}/1/generate` }), TIMEOUT_MS), false);
    assert.equal(await client.probe(instance({ tcp: `127.0.0.1:${closed.port}/1/generate` }), TIMEOUT_MS), false);
    assert.equal(await client.probe(instance({ tcp: `127.0.0.1:${rejecting.port}/1/generate` }), TIMEOUT_MS), true);
    assert.equal(headersSeen[0]![PING_HEADER], '1');
  } finally {
    await client.close();
    silent.server.close();
    rejecting.server.close();
    await worker.shutdown();
    await frontend.shutdown();
  }
});

test('nats: a serving worker answers its ping; a subject nobody serves does not', async () => {
  const nats = await startNats();
  const ns = `ping-nats-${Date.now()}`;
  const opts: RuntimeOptions = { ...IN_PROCESS_RUNTIME, requestPlane: 'nats', natsServer: nats.url };
  const worker = await DistributedRuntime.create(opts);
  const frontend = await DistributedRuntime.create(opts);
  try {
    await worker.namespace(ns).component('backend').endpoint('generate').serveEndpoint(engineHandler(NOTHING));
    const [served] = await discoverInstances(frontend, ns, 1);
    assert.equal(await frontend.requestClient.probe(served!, TIMEOUT_MS), true);
    assert.equal(await frontend.requestClient.probe(instance({ nats_tcp: `${ns}.nobody-1` }), TIMEOUT_MS), false);
  } finally {
    await worker.shutdown();
    await frontend.shutdown();
    await closeNatsConnections();
    await nats.dispose();
  }
});
