// The HTTP frontend's requests publish their events through the pipeline: the order of a stream,
// a unary answer, validation and engine errors, a client that goes away, and two frontends in one
// process that neither see nor count each other's requests.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpService } from '../../../src/frontends/http/index.js';
import { FrontendMetrics, MetricsRegistry } from '../../../src/observability/index.js';
import type { EngineClient, GenerateContext, LLMEngineOutput, RequestScope } from '../../../src/protocols/index.js';
import { httpWithEngines } from '../../support/http-with-engines.js';
import { eventually, postJson } from '../../support/in-process.js';
import { recordRequestEvents, type EventRecorder } from '../../support/request-events.js';

const ENGINES: Record<string, EngineClient> = {
  // "Hello", " world", "!" in three steps.
  ok: {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [9707] };
      yield { token_ids: [1879] };
      yield { token_ids: [0], finish_reason: 'length' };
    },
  },
  // One token, then the engine fails.
  broken: {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [9707] };
      throw new Error('engine died');
    },
  },
  // One token, then silence until the request is cancelled.
  hang: {
    async *generate(_req, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [9707] };
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  },
};

interface Frontend {
  http: HttpService;
  baseUrl: string;
  metrics: MetricsRegistry;
  events: EventRecorder;
  stopMetrics: () => void;
}

async function frontend(name: string): Promise<Frontend> {
  const scope: RequestScope = { name };
  const metrics = new MetricsRegistry();
  const stopMetrics = new FrontendMetrics(metrics).observe(scope);
  const events = recordRequestEvents(scope);
  const { http, baseUrl } = await httpWithEngines(ENGINES, { metrics, requestScope: scope });
  return { http, baseUrl, metrics, events, stopMetrics };
}

async function close(f: Frontend): Promise<void> {
  await f.http.shutdown();
  f.events.stop();
  f.stopMetrics();
}

describe('request events of the HTTP frontend', () => {
  let a: Frontend;
  let b: Frontend;
  before(async () => {
    a = await frontend('a');
    b = await frontend('b');
  });
  after(async () => {
    await close(a);
    await close(b);
  });

  const completion = (f: Frontend, model: string, extra: Record<string, unknown> = {}) =>
    postJson(f.baseUrl, '/v1/completions', { model, prompt: 'x', max_tokens: 5, ...extra });

  test('a stream: start, first token, one token event per step, end with the usage', async () => {
    a.events.seen.length = 0;
    await (await completion(a, 'ok', { stream: true })).text();
    assert.deepEqual(a.events.names(), ['start', 'firstToken', 'token', 'token', 'token', 'end']);
    const [start] = a.events.of('start');
    assert.equal(start!.request.model, 'ok');
    assert.equal(start!.request.endpoint, 'completions');
    assert.equal(start!.request.requestType, 'stream');
    const [end] = a.events.of('end');
    assert.equal(end!.usage?.completion_tokens, 3);
    assert.ok(end!.usage!.prompt_tokens > 0);
  });

  test('a unary chat answer is a unary chat_completions request', async () => {
    a.events.seen.length = 0;
    const res = await postJson(a.baseUrl, '/v1/chat/completions', { model: 'ok', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 });
    assert.equal(res.status, 200);
    await res.text();
    assert.deepEqual(a.events.names(), ['start', 'firstToken', 'token', 'token', 'token', 'end']);
    assert.equal(a.events.of('start')[0]!.request.endpoint, 'chat_completions');
    assert.equal(a.events.of('start')[0]!.request.requestType, 'unary');
  });

  test('a request that fails validation and a stream whose engine fails end with their error kinds', async () => {
    a.events.seen.length = 0;
    assert.equal((await completion(a, 'ok', { max_tokens: -1 })).status, 400);
    assert.deepEqual(a.events.names(), ['start', 'error:validation']);
    a.events.seen.length = 0;
    const text = await (await completion(a, 'broken', { stream: true })).text();
    assert.match(text, /"error"/);
    assert.deepEqual(a.events.names(), ['start', 'firstToken', 'token', 'error:internal']);
  });

  test('a client that goes away is a cancel', async () => {
    a.events.seen.length = 0;
    const abort = new AbortController();
    const res = await fetch(`${a.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'hang', prompt: 'x', max_tokens: 5, stream: true }),
      signal: abort.signal,
    });
    await res.body!.getReader().read();
    abort.abort();
    await eventually(() => a.events.names().includes('cancel'), 5000, 'the cancel event');
    assert.deepEqual(a.events.names(), ['start', 'firstToken', 'token', 'cancel']);
  });

  test("two frontends in one process neither see nor count each other's requests", async () => {
    a.events.seen.length = 0;
    b.events.seen.length = 0;
    await (await completion(b, 'ok')).text();
    assert.deepEqual(a.events.names(), []);
    assert.deepEqual(b.events.names(), ['start', 'firstToken', 'token', 'token', 'token', 'end']);
    const countOf = async (f: Frontend) =>
      (await f.metrics.render()).match(/requests_total\{model="ok",endpoint="completions",request_type="unary",status="success",error_type=""\} (\d+)/)?.[1];
    assert.equal(await countOf(b), '1');
    assert.equal(await countOf(a), undefined);
  });
});
