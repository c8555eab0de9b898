// Tracing across processes: a frontend process (kv router mode) and a mocker process over file
// discovery and the TCP request plane (and the NATS one), both exporting to one stand-in OTLP
// collector. The trace context crosses the request plane in the frame (message) headers, so the
// worker's span joins the client's trace under the frontend's engine call; SIGTERM flushes both
// processes' spans.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import OpenAI from 'openai';
import { startNats } from '../support/infra-servers.js';
import { eventually } from '../support/in-process.js';
import { OtlpCollector } from '../support/otlp-collector.js';
import { assertGenerationTrace, clientContext, fiveTokenChat, only } from '../support/trace-checks.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

test('a worker over TCP joins the client trace under the frontend engine call', () => tracedAcross('tcp'));

test('a worker over NATS joins the client trace under the frontend engine call', async () => {
  const nats = await startNats();
  try {
    await tracedAcross('nats', { NATS_SERVER: nats.url });
  } finally {
    await nats.stop();
  }
});

async function tracedAcross(plane: string, extraEnv: Record<string, string> = {}): Promise<void> {
  const collector = await OtlpCollector.start();
  const kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-tracing-kv-'));
  const env = {
    DYN_DISCOVERY_BACKEND: 'file',
    DYN_FILE_KV: kvRoot,
    DYN_REQUEST_PLANE: plane,
    OTEL_EXPORT_ENABLED: '1',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.tracesUrl,
    ...extraEnv,
  };
  const worker = startMockerProcess(env, ['--speedup-ratio', '100']);
  const frontend = await startFrontendProcess(env, ['--router-mode', 'kv']);
  const client = clientContext();
  try {
    await waitForModel(frontend.baseUrl, MODEL, frontend.proc, 60_000);
    const openai = new OpenAI({ baseURL: `${frontend.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const answer = await openai.chat.completions.create(fiveTokenChat('Tell me about tracing'), { headers: { traceparent: client.traceparent, tracestate: 'vendor=1' } });
    assert.equal(answer.usage?.completion_tokens, 5);
  } finally {
    await stopAll([frontend.proc, worker]);
    rmSync(kvRoot, { recursive: true, force: true });
  }
  try {
    await eventually(() => collector.trace(client.traceId).some((s) => s.name === 'mocker.generate'), 60_000, 'the worker span');
    const spans = collector.trace(client.traceId);
    const root = assertGenerationTrace(spans, client, 'http-request', { span: 'kv_router.route_request', mode: 'kv' });
    assert.equal(root.service, 'dynamo-ts-frontend');
    assert.equal(typeof only(spans, 'kv_router.route_request').attributes.overlap_blocks, 'number');
    assert.equal(only(spans, 'mocker.generate').service, 'dynamo-ts-mocker');
  } finally {
    await collector.close();
  }
}
