import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { WorkerLostError, type EngineClient, type GenerateContext, type LLMEngineOutput, type PreprocessedRequest, type TensorEngine } from '../../../src/protocols/index.js';
import {
  closeNatsConnections,
  decodeEndpointInstance,
  DistributedRuntime,
  encodeAck,
  encodeTwoPart,
  encodeTwoPartHeader,
  ENGINE_SHUTDOWN_MESSAGE,
  engineHandler,
  isWorkerLostDetail,
  engineOutputOf,
  INSTANCES_BUCKET,
  MultiTransportClient,
  parseRequestControl,
  decodeTwoPart,
  RemoteEngineClient,
  RemoteTensorClient,
  RequestFrameDecoder,
  STREAM_END_JSON,
  streamItemJson,
  tensorEngineHandler,
  watchRecords,
  type EndpointInstance,
  type RuntimeOptions,
} from '../../../src/runtime/index.js';
import { startNats } from '../../support/infra-servers.js';
import { eventually } from '../../support/in-process.js';
import { discoverInstances, IN_PROCESS_RUNTIME } from '../../support/in-process-runtime.js';

const REQUEST: PreprocessedRequest = {
  model: 'm',
  token_ids: [1, 2, 3],
  stop_conditions: { max_tokens: 3 },
  sampling_options: {},
  output_options: {},
  eos_token_ids: [],
};

/** Emits `n` tokens, one per tick; counts streams stopped early (abort signal or early return). */
class CountingEngine implements EngineClient {
  aborted = 0;
  requests: PreprocessedRequest[] = [];
  constructor(private readonly n: number, private readonly tickMs = 1) {}
  async *generate(req: PreprocessedRequest, ctx: { signal: AbortSignal }): AsyncGenerator<LLMEngineOutput> {
    this.requests.push(req);
    let i = 0;
    try {
      for (; i < this.n && !ctx.signal.aborted; i++) {
        await new Promise((r) => setTimeout(r, this.tickMs));
        if (ctx.signal.aborted) break;
        yield i === this.n - 1 ? { token_ids: [100 + i], finish_reason: 'length' } : { token_ids: [100 + i] };
      }
    } finally {
      if (i < this.n) this.aborted++;
    }
  }
}

/** In-process discovery (one shared store per process; each test uses its own namespace). */
function options(requestPlane: RuntimeOptions['requestPlane'] = 'tcp', natsServer = 'nats://127.0.0.1:1'): RuntimeOptions {
  return { ...IN_PROCESS_RUNTIME, requestPlane, natsServer };
}

/** Runs `body` with the runtime options of `plane`, starting (and afterwards stopping) a NATS server when it needs one. */
async function withPlane(plane: RuntimeOptions['requestPlane'], body: (opts: RuntimeOptions) => Promise<void>): Promise<void> {
  const nats = plane === 'nats' ? await startNats() : null;
  try {
    await body(options(plane, nats?.url));
  } finally {
    if (nats) {
      await closeNatsConnections();
      await nats.dispose();
    }
  }
}

const discover = discoverInstances;

async function collect(stream: AsyncIterable<LLMEngineOutput>): Promise<number[]> {
  const ids: number[] = [];
  for await (const out of stream) ids.push(...out.token_ids);
  return ids;
}

for (const plane of ['tcp', 'inproc'] as const) {
  test(`${plane} request plane: worker API registers, frontend client streams, cancel reaches the engine`, async () => {
    const ns = `rp-${plane}-${Date.now()}`;
    const worker = await DistributedRuntime.create(options(plane));
    const sibling = await worker.sibling();
    const engines = [new CountingEngine(5), new CountingEngine(1000, 2)];
    await worker.namespace(ns).component('backend').endpoint('generate').serveEndpoint(engineHandler(engines[0]!));
    await sibling.namespace(ns).component('backend').endpoint('generate').serveEndpoint(engineHandler(engines[1]!));
    const frontend = await DistributedRuntime.create(options(plane));
    try {
      const instances = await discover(frontend, ns, 2);
      const byId = new Map(instances.map((i) => [i.instanceId, i]));
      assert.ok(byId.has(worker.instanceId) && byId.has(sibling.instanceId), 'each runtime is its own instance');
      if (plane === 'tcp') assert.match(JSON.stringify(byId.get(worker.instanceId)!.transport), new RegExp(`"tcp":"127\\.0\\.0\\.1:\\d+/${worker.instanceIdHex}/generate"`));

      const client = new RemoteEngineClient(frontend.requestClient, byId.get(worker.instanceId)!);
      const ac = new AbortController();
      assert.deepEqual(await collect(client.generate(REQUEST, { requestId: 'r1', signal: ac.signal })), [100, 101, 102, 103, 104]);
      assert.deepEqual(engines[0]!.requests[0], REQUEST, 'the PreprocessedRequest arrives intact');

      // Several requests pipelined on one connection.
      const many = await Promise.all([1, 2, 3].map((i) => collect(client.generate(REQUEST, { requestId: `p${i}`, signal: ac.signal }))));
      for (const ids of many) assert.equal(ids.length, 5);

      // The consumer leaves after two tokens: the worker's engine is told to stop.
      const slow = new RemoteEngineClient(frontend.requestClient, byId.get(sibling.instanceId)!);
      let got = 0;
      for await (const _ of slow.generate(REQUEST, { requestId: 'r2', signal: ac.signal })) if (++got === 2) break;
      await eventually(() => engines[1]!.aborted === 1, 5000, 'engine abort after break');

      const abort = new AbortController();
      const stream = slow.generate(REQUEST, { requestId: 'r3', signal: abort.signal });
      setTimeout(() => abort.abort(), 20);
      await collect(stream);
      await eventually(() => engines[1]!.aborted === 2, 5000, 'engine abort after signal');
    } finally {
      await sibling.shutdown();
      await worker.shutdown();
      await frontend.shutdown();
    }
  });
}

test('a worker shut down past its drain grace ends running streams as a lost worker, not as a clean end', async () => {
  const ns = `rp-drain-${Date.now()}`;
  const worker = await DistributedRuntime.create(options());
  const engine = new CountingEngine(100_000, 5);
  await worker.namespace(ns).component('backend').endpoint('generate').serveEndpoint(engineHandler(engine));
  const frontend = await DistributedRuntime.create(options());
  try {
    const [instance] = await discover(frontend, ns, 1);
    const client = new RemoteEngineClient(frontend.requestClient, instance!);
    let got = 0;
    const outcome = (async () => {
      for await (const out of client.generate(REQUEST, { requestId: 'drained', signal: new AbortController().signal })) {
        got += out.token_ids.length;
        assert.equal(out.finish_reason ?? null, null, 'no finish reason: the answer was cut');
      }
    })();
    await eventually(() => got >= 2, 5000, 'tokens before the shutdown');
    await worker.shutdown();
    await assert.rejects(outcome, (err: Error) => err instanceof WorkerLostError && /EngineShutdown/.test(err.message) && err.instanceId === instance!.instanceId);
    assert.equal(engine.aborted, 1, 'the engine was told to stop');
  } finally {
    await frontend.shutdown();
  }
});

test('error details that name a lost worker: our text and upstream DynamoError objects', () => {
  assert.equal(isWorkerLostDetail(ENGINE_SHUTDOWN_MESSAGE), true);
  assert.equal(isWorkerLostDetail({ error_type: { Backend: 'EngineShutdown' }, message: 'x' }), true);
  assert.equal(isWorkerLostDetail({ error_type: 'Disconnected', message: 'x' }), true);
  assert.equal(isWorkerLostDetail({ error_type: 'InvalidArgument', message: 'x' }), false);
  assert.equal(isWorkerLostDetail('engine exploded'), false);
  assert.equal(isWorkerLostDetail(null), false);
});

test('clean worker shutdown removes its instance from discovery', async () => {
  const ns = `rp-shutdown-${Date.now()}`;
  const worker = await DistributedRuntime.create(options());
  await worker.namespace(ns).component('backend').endpoint('generate').serveEndpoint(engineHandler(new CountingEngine(1)));
  const frontend = await DistributedRuntime.create(options());
  const seen: string[] = [];
  const stop = await watchRecords(frontend.discovery, `${INSTANCES_BUCKET}/${ns}/`, decodeEndpointInstance, {
    onPut: () => seen.push('put'),
    onDelete: () => seen.push('delete'),
  });
  await worker.shutdown();
  await eventually(() => seen.join() === 'put,delete', 5000, 'delete');
  stop();
  await frontend.shutdown();
});

/** A hand-written upstream-style worker: acks, dials back, then plays `script` on the response socket. */
async function fakeWorker(script: (socket: Socket, subject: string) => void, ack = ''): Promise<{ address: string; close(): void }> {
  const server = createServer((conn) => {
    const decoder = new RequestFrameDecoder();
    conn.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        conn.write(encodeAck(ack));
        if (ack) continue;
        const control = parseRequestControl(decodeTwoPart(frame.payload).header);
        const [host, port] = control.callHome.address.split(':');
        const back = connect({ host, port: Number(port) }, () => {
          back.write(encodeTwoPartHeader({ subject: control.callHome.subject, stream_type: 'response' }));
          script(back, control.callHome.subject);
        });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { address: `127.0.0.1:${port}`, close: () => server.close() };
}

function target(address: string): EndpointInstance {
  return { namespace: 'n', component: 'c', endpoint: 'generate', instanceId: 0xabcn, transport: { tcp: `${address}/abc/generate` }, requestPlaneCodec: 'json' };
}

test('requests sent together on one connection each hear their own ack', async () => {
  // Rejects the requests whose id says so, answers the others with one token: the ack order is the frames' order.
  const server = createServer((conn) => {
    const decoder = new RequestFrameDecoder();
    conn.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        if (frame.headers['request-id']!.startsWith('no')) {
          conn.write(encodeAck(`Server unavailable: refused ${frame.headers['request-id']}`));
          continue;
        }
        conn.write(encodeAck(''));
        const control = parseRequestControl(decodeTwoPart(frame.payload).header);
        const [host, port] = control.callHome.address.split(':');
        const back = connect({ host, port: Number(port) }, () => {
          back.write(encodeTwoPartHeader({ subject: control.callHome.subject, stream_type: 'response' }));
          back.write(encodeTwoPartHeader({ error: null }));
          back.write(encodeTwoPart(null, streamItemJson('{"data":{"token_ids":[7],"finish_reason":"length"}}')));
          back.write(encodeTwoPart(null, STREAM_END_JSON));
          back.end(encodeTwoPartHeader('sentinel'));
        });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
  const client = new MultiTransportClient({ natsServer: '', maxMessageSize: 1 << 20, advertiseHost: '127.0.0.1' });
  const engine = new RemoteEngineClient(client, target(address));
  const outcome = (requestId: string): Promise<string> =>
    collect(engine.generate(REQUEST, { requestId, signal: new AbortController().signal })).then(
      (ids) => `ok ${ids.join(',')}`,
      (err: Error) => err.message,
    );
  try {
    // The first one opens the connection; later ones find it open.
    assert.equal(await outcome('first'), 'ok 7');
    const together = await Promise.all(['a', 'no-b', 'c', 'no-d', 'e'].map(outcome));
    assert.deepEqual(together.map((o) => (o.startsWith('ok') ? o : /refused (\S+)/.exec(o)?.[1] ?? o)), ['ok 7', 'no-b', 'ok 7', 'no-d', 'ok 7']);
    assert.equal(await outcome('no-last'), 'Server unavailable: refused no-last');
  } finally {
    server.close();
    await client.close();
  }
});

test('a worker that dies mid-stream ends the request with a clear error', async () => {
  const worker = await fakeWorker((s) => {
    s.write(encodeTwoPartHeader({ error: null }));
    s.write(encodeTwoPart(null, streamItemJson('{"data":{"token_ids":[5]}}')));
    setTimeout(() => s.destroy(), 10);
  });
  const client = new MultiTransportClient({ natsServer: '', maxMessageSize: 1 << 20, advertiseHost: '127.0.0.1' });
  try {
    const engine = new RemoteEngineClient(client, target(worker.address));
    const got: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const out of engine.generate(REQUEST, { requestId: 'x', signal: new AbortController().signal })) got.push(...out.token_ids);
      })(),
      (err: Error & { httpStatus?: number }) => /worker connection lost/.test(err.message) && err.httpStatus === 503,
    );
    assert.deepEqual(got, [5]);
  } finally {
    worker.close();
    await client.close();
  }
});

test('rejection acks, error prologues, unreachable workers and Rust-shaped outputs', async () => {
  const client = new MultiTransportClient({ natsServer: '', maxMessageSize: 1 << 20, advertiseHost: '127.0.0.1' });
  const ctx = { requestId: 'x', signal: new AbortController().signal };
  const rejecting = await fakeWorker(() => undefined, 'Server unavailable: draining');
  const failing = await fakeWorker((s) => {
    s.write(encodeTwoPartHeader({ error: 'bad request' }));
    s.end(encodeTwoPartHeader('sentinel'));
  });
  const rusty = await fakeWorker((s) => {
    s.write(encodeTwoPartHeader({ error: null }));
    const full = { token_ids: [9], tokens: null, text: null, cum_log_probs: null, log_probs: null, top_logprobs: null, finish_reason: null, index: null };
    s.write(encodeTwoPart(null, streamItemJson(JSON.stringify({ data: full }))));
    s.write(encodeTwoPart(null, streamItemJson(JSON.stringify({ event: 'formatted_prompt', comment: ['p'] }))));
    s.write(encodeTwoPart(null, streamItemJson(JSON.stringify({ data: { ...full, token_ids: [10], finish_reason: 'eos' } }))));
    s.write(encodeTwoPart(null, STREAM_END_JSON));
    s.end(encodeTwoPartHeader('sentinel'));
  });
  try {
    await assert.rejects(collect(new RemoteEngineClient(client, target(rejecting.address)).generate(REQUEST, ctx)), /Server unavailable: draining/);
    await assert.rejects(collect(new RemoteEngineClient(client, target(failing.address)).generate(REQUEST, ctx)), /worker rejected the request: bad request/);
    const outs: LLMEngineOutput[] = [];
    for await (const out of new RemoteEngineClient(client, target(rusty.address)).generate(REQUEST, ctx)) outs.push(out);
    assert.deepEqual(outs.map((o) => [o.token_ids, o.finish_reason]), [[[9], null], [[10], 'eos']]);
    await assert.rejects(collect(new RemoteEngineClient(client, target('127.0.0.1:1')).generate(REQUEST, ctx)), /unreachable/);
  } finally {
    for (const w of [rejecting, failing, rusty]) w.close();
    await client.close();
  }
});

test('Annotated items: sparse Python shape, error events and finish_reason errors', () => {
  assert.deepEqual(engineOutputOf({ data: { token_ids: [1] } }), { token_ids: [1] });
  assert.deepEqual(engineOutputOf({ data: { finish_reason: 'stop' } }), { finish_reason: 'stop', token_ids: [] });
  assert.equal(engineOutputOf({ event: 'formatted_prompt', comment: ['x'] }), null);
  assert.throws(() => engineOutputOf({ event: 'error', comment: ['engine died'] }), /worker error: engine died/);
  assert.throws(() => engineOutputOf({ event: 'error', error: 'oom' }), /worker error: oom/);
  assert.throws(() => engineOutputOf({ data: { token_ids: [], finish_reason: { error: 'bad' } } }), /worker error: bad/);
});

type SeenMetadata = GenerateContext['metadata'] | null;

/** Engines that record the request metadata each call's context carries (null when none). */
function recordingEngines(): { llm: EngineClient; tensor: TensorEngine; seen: { llm: SeenMetadata[]; tensor: SeenMetadata[] } } {
  const seen = { llm: [] as SeenMetadata[], tensor: [] as SeenMetadata[] };
  return {
    seen,
    llm: {
      async *generate(_request, ctx) {
        seen.llm.push(ctx.metadata ?? null);
        yield { token_ids: [7], finish_reason: 'stop' };
      },
    },
    tensor: {
      async *generate(request, ctx) {
        seen.tensor.push(ctx.metadata ?? null);
        yield { model: request.model, tensors: [] };
      },
    },
  };
}

for (const plane of ['tcp', 'nats', 'inproc'] as const) {
  test(`${plane} request plane: the request context's metadata reaches the worker's LLM and tensor engines`, () =>
    withPlane(plane, async (opts) => {
      const ns = `rp-meta-${plane}-${Date.now()}`;
      const worker = await DistributedRuntime.create(opts);
      const { llm, tensor, seen } = recordingEngines();
      const component = worker.namespace(ns).component('backend');
      await component.endpoint('generate').serveEndpoint(engineHandler(llm));
      await component.endpoint('tensor').serveEndpoint(tensorEngineHandler(tensor));
      const frontend = await DistributedRuntime.create(opts);
      try {
        const instances = await discover(frontend, ns, 2);
        const at = (endpoint: string): EndpointInstance => instances.find((i) => i.endpoint === endpoint)!;
        const llmClient = new RemoteEngineClient(frontend.requestClient, at('generate'));
        const tensorClient = new RemoteTensorClient(frontend.requestClient, at('tensor'));
        const signal = new AbortController().signal;
        // Any string survives: case, spaces and characters a header name could not hold.
        const metadata = { tenant: 'acme', 'trace-id': 'abc', 'Key With Spaces': ' padded value ', 'ключ': 'значение' };

        assert.deepEqual(await collect(llmClient.generate(REQUEST, { requestId: 'm1', signal, metadata })), [7]);
        await collect(llmClient.generate(REQUEST, { requestId: 'm2', signal }));
        assert.deepEqual(seen.llm, [metadata, null]);

        const tensorRequest = { id: null, model: 'tensor-model', tensors: [] };
        for await (const res of tensorClient.generate(tensorRequest, { requestId: 't1', signal, metadata })) assert.equal(res.model, 'tensor-model');
        for await (const _ of tensorClient.generate(tensorRequest, { requestId: 't2', signal })) void _;
        assert.deepEqual(seen.tensor, [metadata, null]);
      } finally {
        await worker.shutdown();
        await frontend.shutdown();
      }
  }));
}

/** Upstream's logprob fields, alternatives with and without bytes, and engine_data. */
const LOGPROB_OUTPUTS: LLMEngineOutput[] = [
  {
    token_ids: [5, 6],
    index: 0,
    log_probs: [-0.125, -2.5],
    top_logprobs: [
      [{ rank: 1, token_id: 5, token: ' a', logprob: -0.125 }, { rank: 2, token_id: 9, token: null, logprob: -3.75, bytes: [0xe4, 0xbd] }],
      [{ rank: 1, token_id: 6, token: 'é', logprob: -2.5 }],
    ],
    cum_log_probs: -2.625,
  },
  { token_ids: [7], index: 0, log_probs: [-1e-9], top_logprobs: [[]], finish_reason: 'length', engine_data: { prompt_logprobs: [null, { '5': { logprob: -1.5, rank: 3 } }] } },
];

for (const plane of ['tcp', 'nats'] as const) {
  test(`${plane} request plane: logprob fields arrive exactly as the worker's engine produced them`, () =>
    withPlane(plane, async (opts) => {
      const ns = `rp-logprobs-${plane}-${Date.now()}`;
      const worker = await DistributedRuntime.create(opts);
      await worker.namespace(ns).component('backend').endpoint('generate').serveEndpoint(
        engineHandler({
          async *generate() {
            yield* LOGPROB_OUTPUTS;
          },
        }),
      );
      const frontend = await DistributedRuntime.create(opts);
      try {
        const [instance] = await discover(frontend, ns, 1);
        const outs: LLMEngineOutput[] = [];
        for await (const out of new RemoteEngineClient(frontend.requestClient, instance!).generate(REQUEST, { requestId: 'lp', signal: new AbortController().signal })) outs.push(out);
        assert.deepEqual(outs, LOGPROB_OUTPUTS);
      } finally {
        await worker.shutdown();
        await frontend.shutdown();
      }
  }));
}
