import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HttpService } from '../../../src/frontends/http/index.js';
import { ValidationError, type EngineClient, type LLMEngineOutput } from '../../../src/protocols/index.js';
import { injectedHttpWithEngines } from '../../support/http-with-engines.js';
import { postJson } from '../../support/in-process.js';

/** Emits the ids of "Hello" and " world", then fails with `error`. */
function failingEngine(error: Error): EngineClient {
  return {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [9707] };
      yield { token_ids: [1879] };
      throw error;
    },
  };
}

describe('errors after the stream has started', () => {
  let http: HttpService;
  let baseUrl: string;

  before(async () => {
    ({ http, baseUrl } = await injectedHttpWithEngines({
      leaky: failingEngine(new Error('disk /srv/secret failed')),
      picky: failingEngine(new ValidationError('backend rejected max_tokens')),
    }));
  });
  after(async () => http.shutdown());

  test('an internal error becomes an inline error event without details, then [DONE]', async () => {
    const res = await postJson(baseUrl, '/v1/completions', { model: 'leaky', prompt: 'x', stream: true, max_tokens: 10 });
    assert.equal(res.status, 200);
    const text = await res.text();
    const events = text.split('\n\n').filter((e) => e.length > 0);
    assert.equal(events.length, 4);
    assert.match(events[0]!, /^data: \{.*"text":"Hello"/);
    assert.match(events[1]!, /^data: \{.*"text":" world"/);
    assert.equal(events[2], 'data: {"error":{"message":"Internal server error","type":"internal_server_error","code":500}}');
    assert.equal(events[3], 'data: [DONE]');
    assert.ok(!text.includes('/srv/secret'));
  });

  test('a request error keeps its message and code 400', async () => {
    const res = await postJson(baseUrl, '/v1/chat/completions', {
      model: 'picky',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      max_tokens: 10,
    });
    const text = await res.text();
    assert.ok(
      text.includes('data: {"error":{"message":"backend rejected max_tokens","type":"invalid_request_error","code":400}}\n\ndata: [DONE]\n\n'),
      text,
    );
  });

  test('a unary request whose engine fails gets the mapped status', async () => {
    const leaky = await postJson(baseUrl, '/v1/completions', { model: 'leaky', prompt: 'x', max_tokens: 10 });
    assert.equal(leaky.status, 500);
    assert.equal(((await leaky.json()) as { message: string }).message, 'Internal server error');
    const picky = await postJson(baseUrl, '/v1/completions', { model: 'picky', prompt: 'x', max_tokens: 10 });
    assert.equal(picky.status, 400);
    assert.equal(((await picky.json()) as { message: string }).message, 'backend rejected max_tokens');
  });
});
