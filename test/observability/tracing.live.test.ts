// Tracing end to end in one process: `serve` with OTEL_EXPORT_ENABLED exports to a stand-in OTLP
// collector; chat (unary and streamed, through the openai client) and a KServe ModelInfer (through
// grpc-js) each carry a client traceparent, and their spans arrive under it once the service
// stops (the batched spans are flushed on shutdown). Off, nothing subscribes and nothing is sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import OpenAI from 'openai';
import { engineRequestChannel, requestChannels } from '../../src/protocols/index.js';
import { makeClient, textInput, unary } from '../frontends/grpc/harness.js';
import { serveInProcess } from '../support/in-process.js';
import { OtlpCollector } from '../support/otlp-collector.js';
import { assertGenerationTrace, clientContext, fiveTokenChat, MODEL, only } from '../support/trace-checks.js';
import { freePort } from '../support/processes.js';

let collector: OtlpCollector;
const unaryChat = clientContext();
const streamChat = clientContext();
const modelInfer = clientContext();

before(async () => {
  collector = await OtlpCollector.start();
  const grpcPort = await freePort();
  const { service, baseUrl } = await serveInProcess(['--speedup-ratio', '100', '--grpc-port', String(grpcPort)], {
    OTEL_EXPORT_ENABLED: 'true',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.tracesUrl,
  });
  try {
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const body = fiveTokenChat('Hello there');
    const answer = await openai.chat.completions.create(body, { headers: { traceparent: unaryChat.traceparent, tracestate: 'vendor=1' } });
    assert.equal(answer.usage?.completion_tokens, 5);
    const stream = await openai.chat.completions.create({ ...body, stream: true as const }, { headers: { traceparent: streamChat.traceparent } });
    for await (const chunk of stream) void chunk;
    const grpcClient = makeClient(grpcPort);
    const metadata = new grpc.Metadata();
    metadata.set('traceparent', modelInfer.traceparent);
    try {
      await unary(grpcClient, 'ModelInfer', {
        model_name: MODEL,
        inputs: [textInput('Hello there')],
        parameters: { max_tokens: { int64_param: 5 }, ignore_eos: { bool_param: true } },
      }, metadata);
    } finally {
      grpcClient.close();
    }
  } finally {
    await service.stop();
  }
});

after(() => collector.close());

test('unary chat: the request span continues the client trace, with every stage under it and the worker span under the engine call', () => {
  const spans = collector.trace(unaryChat.traceId);
  const root = assertGenerationTrace(spans, unaryChat, 'http-request');
  assert.equal(root.service, 'dynamo-ts-frontend');
  assert.equal(root.attributes.method, 'POST');
  assert.equal(root.attributes.uri, '/v1/chat/completions');
  assert.equal(root.attributes.request_type, 'unary');
  assert.equal(only(spans, 'preprocess.template').parentSpanId, only(spans, 'preprocess').spanId);
});

test('streamed chat is traced the same way, as a stream', () => {
  const spans = collector.trace(streamChat.traceId);
  const root = assertGenerationTrace(spans, streamChat, 'http-request');
  assert.equal(root.attributes.request_type, 'stream');
});

test('gRPC ModelInfer takes the traceparent from the call metadata', () => {
  const spans = collector.trace(modelInfer.traceId);
  const root = assertGenerationTrace(spans, modelInfer, 'grpc-request');
  assert.equal(root.attributes['rpc.system'], 'grpc');
  assert.equal(root.attributes['rpc.service'], 'inference.GRPCInferenceService');
  assert.equal(root.attributes['rpc.method'], 'ModelInfer');
});

test('the exporter sends OTLP JSON to the traces endpoint, and every span belongs to a client trace', () => {
  assert.ok(collector.contentTypes.every((t) => t.startsWith('application/json')));
  const traces = new Set([unaryChat.traceId, streamChat.traceId, modelInfer.traceId]);
  for (const s of collector.spans) assert.ok(traces.has(s.traceId), `${s.name} in a client trace`);
});

test('with tracing off nothing subscribes to the request or engine events and nothing is exported', async () => {
  const off = await OtlpCollector.start();
  const { service, baseUrl } = await serveInProcess(['--speedup-ratio', '100'], { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: off.tracesUrl });
  try {
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    await openai.chat.completions.create(
      { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3 },
      { headers: { traceparent: clientContext().traceparent } },
    );
    for (const name of ['preprocess', 'dispatch', 'dispatchEnd'] as const) assert.equal(requestChannels[name].hasSubscribers, false, name);
    assert.equal(engineRequestChannel.hasSubscribers, false);
  } finally {
    await service.stop();
    await off.close();
  }
  assert.equal(off.posts, 0);
});
