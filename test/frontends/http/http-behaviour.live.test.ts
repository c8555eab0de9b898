import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, postJson, serveInProcess } from '../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const chat = (extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  messages: [{ role: 'user', content: 'hello' }],
  max_tokens: 4,
  ...extra,
});

describe('HTTP behaviour of the OpenAI routes', () => {
  let ctx: Awaited<ReturnType<typeof serveInProcess>>;

  before(async () => {
    ctx = await serveInProcess(['--speedup-ratio', '1000'], { DYN_HTTP_BODY_LIMIT_MB: '1' });
  });
  after(async () => ctx.service.stop());

  test('a non-JSON content type is 415', async () => {
    const res = await fetch(`${ctx.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(chat()),
    });
    assert.equal(res.status, 415);
    const body = (await res.json()) as { message: string; type: string; code: number };
    assert.equal(body.message, 'Expected request with Content-Type application/json');
    assert.equal(body.type, 'Unsupported Media Type');
    assert.equal(body.code, 415);
  });

  test('application/*+json is accepted', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', chat(), { 'content-type': 'application/vnd.api+json' });
    assert.equal(res.status, 200);
  });

  test('a body over DYN_HTTP_BODY_LIMIT_MB is 413 with the limit in the message', async () => {
    const big = chat({ messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024 + 10) }] });
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', big);
    assert.equal(res.status, 413);
    const body = (await res.json()) as { message: string };
    assert.equal(body.message, 'Request body exceeds the limit of 1 MB set by DYN_HTTP_BODY_LIMIT_MB');
  });

  test('malformed JSON is 400 with the deserialization message', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', '{"model": ');
    assert.equal(res.status, 400);
    const body = (await res.json()) as { message: string; code: number };
    assert.match(body.message, /^Failed to deserialize the JSON body into the target type/);
    assert.equal(body.code, 400);
  });

  test('raw control characters inside JSON strings are accepted', async () => {
    const raw = `{"model":"${MODEL}","messages":[{"role":"user","content":"line one\nline\ttwo"}],"max_tokens":2}`;
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', raw);
    assert.equal(res.status, 200);
  });

  test('unknown route is 404 naming method and path', async () => {
    // (GET /v1/responses/{id} is a route now: stored responses.)
    const res = await fetch(`${ctx.baseUrl}/v1/assistants/asst_missing?x=1`);
    assert.equal(res.status, 404);
    const body = (await res.json()) as { message: string; type: string; code: number };
    assert.deepEqual([body.message, body.type, body.code], ['Route not found: GET /v1/assistants/asst_missing', 'Not Found', 404]);
  });

  test('GET on a POST route is 405 with Allow: POST', async () => {
    const res = await fetch(`${ctx.baseUrl}/v1/chat/completions`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });

  test('x-request-id is echoed and becomes the response id', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', chat(), { 'x-request-id': 'req-abc-123' });
    assert.equal(res.headers.get('x-request-id'), 'req-abc-123');
    const body = (await res.json()) as { id: string };
    assert.equal(body.id, 'chatcmpl-req-abc-123');
    const stream = await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'hi', max_tokens: 2, stream: true }, { 'x-request-id': 'req-s' });
    assert.equal(stream.headers.get('x-request-id'), 'req-s');
    assert.match(await stream.text(), /"id":"cmpl-req-s"/);
  });

  test('nvext.annotations arrive as named events before the first chunk', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', chat({ stream: true, nvext: { annotations: ['formatted_prompt', 'token_ids', 'request_id'] } }), { 'x-request-id': 'ann-1' });
    const events = (await res.text()).split('\n\n');
    assert.equal(events[0], `event: formatted_prompt\n: ${JSON.stringify('<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n')}`);
    assert.match(events[1]!, /^event: token_ids\n: \[151644,872,198,\d+(,\d+)*\]$/);
    assert.equal(events[2], 'event: request_id\n: "ann-1"');
    assert.match(events[3]!, /^data: \{"id":"chatcmpl-ann-1"/);
  });

  test('unknown model is 404 Model not found, before body validation', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', chat({ model: 'nope', temperature: 9 }));
    assert.equal(res.status, 404);
    const body = (await res.json()) as { message: string };
    assert.equal(body.message, 'Model not found');
  });

  test('a body without a usable model is 400 naming the problem, not 404', async () => {
    const cases: [unknown, string][] = [
      [[], 'invalid type: sequence, expected a JSON object'],
      [{ messages: [{ role: 'user', content: 'hi' }] }, 'missing field `model`'],
      [{ model: '', messages: [{ role: 'user', content: 'hi' }] }, 'Validation: Model cannot be empty'],
      [{ model: 5, messages: [] }, 'model: invalid type: integer `5`, expected a string'],
    ];
    for (const [body, message] of cases) {
      const res = await postJson(ctx.baseUrl, '/v1/chat/completions', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(((await res.json()) as { message: string }).message.includes(message), message);
    }
  });

  test('validation errors are 400 with the Validation: prefix; functions is 501', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [chat({ temperature: 2.5 }), 400, 'Validation: Temperature must be between 0 and 2, got 2.5'],
      [chat({ stream_options: { include_usage: true } }), 400, "Validation: The 'stream_options' field is only allowed when 'stream' is set to true."],
      [chat({ messages: [] }), 400, "Validation: The 'messages' field cannot be empty. At least one message is required."],
      [chat({ n: 2, temperature: 0 }), 400, 'Validation: When n > 1, temperature must be greater than 0'],
      [chat({ bogus_field: 1 }), 400, 'Unsupported parameter(s): `bogus_field`'],
      [chat({ functions: [{ name: 'f' }] }), 501, 'Validation: `functions` is deprecated'],
    ];
    for (const [body, status, message] of cases) {
      const res = await postJson(ctx.baseUrl, '/v1/chat/completions', body);
      assert.equal(res.status, status, message);
      const json = (await res.json()) as { message: string; error: { message: string } };
      assert.ok(json.message.includes(message), `${json.message} should contain ${message}`);
      assert.equal(json.error.message, json.message);
    }
  });

  test('prompt plus max_tokens over the context length names both numbers', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'hello there', max_tokens: 40_959 });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { message: string };
    assert.match(body.message, /maximum context length is 40960 tokens/);
    assert.match(body.message, /40959 in the completion/);
  });

  test('/v1/models/{id}, /health and /live', async () => {
    const model = await fetch(`${ctx.baseUrl}/v1/models/${MODEL}`);
    assert.equal(model.status, 200);
    assert.equal(((await model.json()) as { id: string }).id, MODEL);
    assert.equal((await fetch(`${ctx.baseUrl}/v1/models/unknown`)).status, 404);
    const health = (await (await fetch(`${ctx.baseUrl}/health`)).json()) as { status: string; endpoints: string[]; instances: unknown[] };
    assert.equal(health.status, 'healthy');
    assert.deepEqual(health.endpoints, ['dyn://dynamo.backend.generate']);
    assert.equal(health.instances.length, 1);
    assert.deepEqual(await (await fetch(`${ctx.baseUrl}/live`)).json(), { status: 'live', message: 'Service is live' });
  });

  test('a client that disconnects mid-stream cancels the engine request', async () => {
    const engine = ctx.service.engines[0]!;
    const abort = new AbortController();
    const slow = await fetch(`${ctx.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat({ max_tokens: 30_000, ignore_eos: true, stream: true })),
      signal: abort.signal,
    });
    const reader = slow.body!.getReader();
    await reader.read();
    await eventually(() => engine.activeRequestCount > 0, 5000, 'the request to reach the engine');
    abort.abort();
    await eventually(() => engine.activeRequestCount === 0, 5000, 'the engine to drop the cancelled requests');
  });

  test('a client that disconnects from a unary request cancels it too', async () => {
    const engine = ctx.service.engines[0]!;
    const abort = new AbortController();
    const pending = fetch(`${ctx.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: 'slow', max_tokens: 30_000, ignore_eos: true }),
      signal: abort.signal,
    }).catch((err: Error) => err);
    await eventually(() => engine.activeRequestCount > 0, 5000, 'the request to reach the engine');
    abort.abort();
    assert.ok((await pending) instanceof Error);
    await eventually(() => engine.activeRequestCount === 0, 5000, 'the engine to drop the cancelled request');
  });
});

describe('startup and shutdown phases', () => {
  test('a model whose workers have not registered yet is 503 not ready', async () => {
    const ctx = await serveInProcess(['--startup-time', '30']);
    try {
      const res = await postJson(ctx.baseUrl, '/v1/chat/completions', chat());
      assert.equal(res.status, 503);
      const body = (await res.json()) as { message: string };
      assert.match(body.message, /^Model `Qwen\/Qwen3-0.6B` is not ready to serve requests yet/);
      const models = (await (await fetch(`${ctx.baseUrl}/v1/models`)).json()) as { data: unknown[] };
      assert.deepEqual(models.data, []);
    } finally {
      await ctx.service.stop();
    }
  });

  test('draining: new requests 503, /health 503, /live 200, in-flight requests finish', async () => {
    // Real-time mocker pace: the in-flight stream lasts well over a second, however loaded the machine.
    const ctx = await serveInProcess(['--speedup-ratio', '1'], { DYN_HTTP_GRACEFUL_SHUTDOWN_TIMEOUT_SECS: '60' });
    const inflight = await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'finish me', max_tokens: 300, ignore_eos: true, stream: true });
    const reader = inflight.body!.getReader();
    await reader.read();
    const stopping = ctx.service.stop();
    await eventually(() => ctx.service.http.state.phase === 'draining', 5000, 'draining');
    const refused = await postJson(ctx.baseUrl, '/v1/chat/completions', chat());
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { message: string }).message, 'Service is not ready');
    assert.equal((await fetch(`${ctx.baseUrl}/health`)).status, 503);
    assert.equal((await fetch(`${ctx.baseUrl}/live`)).status, 200);
    let rest = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    assert.match(rest, /"finish_reason":"length"/);
    assert.ok(rest.endsWith('data: [DONE]\n\n'));
    await stopping;
    assert.equal(ctx.service.http.state.phase, 'stopping');
  });
});
