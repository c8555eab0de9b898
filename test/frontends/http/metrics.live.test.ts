import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, postJson, serveInProcess } from '../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const M = `model="${MODEL}"`;

async function metricsText(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return res.text();
}

/** The value of the first sample line starting with `prefix` (name plus labels). */
function sample(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('/metrics on the HTTP service', () => {
  let ctx: Awaited<ReturnType<typeof serveInProcess>>;
  before(async () => {
    ctx = await serveInProcess(['--speedup-ratio', '1000']);
  });
  after(async () => ctx.service.stop());

  test('successful and failed requests are counted with upstream names and labels', async () => {
    const stream = await postJson(ctx.baseUrl, '/v1/chat/completions', {
      model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, ignore_eos: true, stream: true,
    });
    await stream.text();
    const unary = await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 3, ignore_eos: true });
    await unary.text();
    const bad = await postJson(ctx.baseUrl, '/v1/chat/completions', { model: MODEL, messages: [], stream: true });
    assert.equal(bad.status, 400);

    const text = await metricsText(ctx.baseUrl);
    assert.equal(sample(text, `dynamo_frontend_requests_total{${M},endpoint="chat_completions",request_type="stream",status="success",error_type=""}`), 1);
    assert.equal(sample(text, `dynamo_frontend_requests_total{${M},endpoint="completions",request_type="unary",status="success",error_type=""}`), 1);
    assert.equal(sample(text, `dynamo_frontend_requests_total{${M},endpoint="chat_completions",request_type="stream",status="error",error_type="validation"}`), 1);
    assert.equal(sample(text, `dynamo_frontend_inflight_requests{${M}}`), 0);
    assert.equal(sample(text, `dynamo_frontend_time_to_first_token_seconds_count{${M}}`), 2);
    assert.equal(sample(text, `dynamo_frontend_output_tokens_total{${M}}`), 8);
    assert.equal(sample(text, `dynamo_frontend_output_sequence_tokens_sum{${M}}`), 8);
    assert.ok((sample(text, `dynamo_frontend_inter_token_latency_seconds_count{${M}}`) ?? 0) >= 6);
    const durationSeries = text.split('\n').filter((l) => l.startsWith('dynamo_frontend_request_duration_seconds_count'));
    assert.equal(durationSeries.length, 1, 'one request_duration series per model');
  });

  test('a client that disconnects is counted as cancelled', async () => {
    const abort = new AbortController();
    const res = await fetch(`${ctx.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'long' }], max_tokens: 30_000, ignore_eos: true, stream: true }),
      signal: abort.signal,
    });
    await res.body!.getReader().read();
    abort.abort();
    await eventually(() => ctx.service.engines[0]!.activeRequestCount === 0, 5000, 'the request to be cancelled');
    let text = '';
    for (let i = 0; i < 50; i++) {
      text = await metricsText(ctx.baseUrl);
      if (sample(text, `dynamo_frontend_model_cancellation_total{${M}`) === 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(sample(text, `dynamo_frontend_model_cancellation_total{${M},endpoint="chat_completions",request_type="stream"}`), 1);
    assert.equal(sample(text, `dynamo_frontend_requests_total{${M},endpoint="chat_completions",request_type="stream",status="error",error_type="cancelled"}`), 1);
    assert.equal(sample(text, 'dynamo_frontend_disconnected_clients'), 1);
  });
});

test('--metrics-prefix renames the frontend metrics', async () => {
  const ctx = await serveInProcess(['--metrics-prefix', 'edge_gw']);
  try {
    await (await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'x', max_tokens: 1 })).text();
    const text = await metricsText(ctx.baseUrl);
    assert.ok(text.includes(`edge_gw_requests_total{${M},endpoint="completions"`));
    assert.ok(!text.includes('dynamo_frontend_requests_total'));
  } finally {
    await ctx.service.stop();
  }
});
