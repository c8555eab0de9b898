import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpService } from '../../../src/frontends/http/index.js';
import { MetricsRegistry } from '../../../src/observability/index.js';
import { ValidationError, type EngineClient, type GenerateContext, type LLMEngineOutput } from '../../../src/protocols/index.js';
import { httpWithEngines } from '../../support/http-with-engines.js';
import { postJson } from '../../support/in-process.js';

let hangAborted = false;

const ENGINES: Record<string, EngineClient> = {
  // "Hello", a pause longer than the keep-alive interval, then " world" and a finish.
  slow: {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [9707] };
      await sleep(400);
      yield { token_ids: [1879], finish_reason: 'length' };
    },
  },
  // Rejects the request before producing anything.
  refuse: {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      await sleep(20);
      throw new ValidationError('backend rejected max_tokens');
    },
  },
  // One token, then silence until the request is killed.
  hang: {
    async *generate(_req, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [9707] };
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      hangAborted = true;
    },
  },
};

describe('SSE keep-alive, pre-commit error peek and backend stream timeout', () => {
  let http: HttpService;
  let baseUrl: string;
  const metrics = new MetricsRegistry();

  before(async () => {
    ({ http, baseUrl } = await httpWithEngines(
      ENGINES,
      { metrics, sseKeepAliveMs: 100, preCommitErrorPeekMs: 500 },
      undefined,
      { DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS: '1' },
    ));
  });
  after(async () => http.shutdown());

  const stream = (model: string) => postJson(baseUrl, '/v1/completions', { model, prompt: 'x', max_tokens: 5, stream: true });

  test('a silent stream gets keep-alive comments and still completes', async () => {
    const text = await (await stream('slow')).text();
    assert.match(text, /\n\n: keep-alive\n\n/);
    assert.match(text, /"text":" world","logprobs":null,"finish_reason":"length"/);
    assert.ok(text.endsWith('data: [DONE]\n\n'));
  });

  test('an error before the first event becomes a plain HTTP error within the peek window', async () => {
    const res = await stream('refuse');
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(((await res.json()) as { message: string }).message, 'backend rejected max_tokens');
  });

  test('a backend silent past the timeout is killed as a lost worker: an error event, engine aborted', async () => {
    const res = await stream('hang');
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /"text":"Hello"/);
    assert.match(text, /data: \{"error"/);
    assert.equal(hangAborted, true);
    const rendered = await metrics.render();
    assert.match(rendered, /requests_total\{model="hang",endpoint="completions",request_type="stream",status="error",error_type="unavailable"\} 1/);
  });
});
