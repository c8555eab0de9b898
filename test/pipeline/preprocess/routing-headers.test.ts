import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { routingFromHeaders as fromLookup } from '../../../src/pipeline/index.js';

const nvextFromHeaders = (headers: Record<string, string | string[] | undefined>) => fromLookup((name) => headers[name]);
import { eventually, postJson, serveInjected } from '../../support/in-process.js';
import { fetchFor } from '../../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';

test('the session of session affinity: x-dynamo-session-id, else the agents\' headers in upstream\'s order, trimmed', () => {
  const session = (headers: Record<string, string>) => nvextFromHeaders(headers).session_id;
  assert.equal(session({ 'x-dynamo-session-id': ' s1 ', 'thread-id': 't' }), 's1');
  assert.equal(session({ 'x-claude-code-session-id': 'cs', 'x-claude-code-agent-id': 'agent', 'thread-id': 't' }), 'agent');
  assert.equal(session({ 'x-claude-code-session-id': 'cs' }), 'cs');
  assert.equal(session({ 'x-claude-code-agent-id': 'agent', 'x-session-id': 'oc' }), 'oc', 'an agent id alone does not name a session');
  assert.equal(session({ 'thread-id': 't', 'x-session-id': 'oc' }), 't');
  assert.equal(session({ 'x-dynamo-session-id': '   ' }), undefined, 'empty values are ignored');
});

test('routing headers map onto nvext; ids stay exact decimal strings', () => {
  assert.deepEqual(
    nvextFromHeaders({
      'x-worker-instance-id': '18446744073709551615',
      'x-prefill-instance-id': '7',
      'x-data-parallel-rank': '2',
      'x-dynamo-prefill-dp-rank': '4294967295',
      'x-dynamo-request-priority': '-3',
      'x-tenant-id': 'acme',
    }),
    {
      backend_instance_id: '18446744073709551615',
      decode_worker_id: '18446744073709551615',
      prefill_worker_id: '7',
      dp_rank: 2,
      agent_hints: { priority: -3 },
      cache_salt: 'acme',
    },
  );
  assert.throws(() => nvextFromHeaders({ 'x-dynamo-worker-instance-id': 'abc' }), /header x-dynamo-worker-instance-id must be an unsigned integer/);
  assert.throws(() => nvextFromHeaders({ 'x-dynamo-worker-instance-id': '18446744073709551616' }), /no larger than 18446744073709551615/);
});

describe('direct routing over HTTP', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  let ids: bigint[];
  before(async () => {
    ctx = await serveInjected(['--num-workers', '3', '--router-mode', 'direct', '--speedup-ratio', '1000']);
    ids = [...ctx.service.instanceIds];
  });
  after(async () => ctx.service.stop());

  /** Start a long stream pinned by `pin`, find which engine runs it, then cancel it. */
  async function engineServing(pin: { headers?: Record<string, string>; nvextRaw?: string }): Promise<number> {
    const abort = new AbortController();
    const nvext = pin.nvextRaw ? `,"nvext":${pin.nvextRaw}` : '';
    const body = `{"model":"${MODEL}","prompt":"pin me","max_tokens":30000,"ignore_eos":true,"stream":true${nvext}}`;
    const res = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(pin.headers ?? {}) },
      body,
      signal: abort.signal,
    });
    assert.equal(res.status, 200);
    await res.body!.getReader().read();
    await eventually(() => ctx.service.engines.some((e) => e.activeRequestCount > 0), 5000, 'an engine to take the request');
    const serving = ctx.service.engines.findIndex((e) => e.activeRequestCount > 0);
    abort.abort();
    await eventually(() => ctx.service.engines.every((e) => e.activeRequestCount === 0), 5000, 'the request to end');
    return serving;
  }

  test('the x-dynamo-worker-instance-id header picks the worker', async () => {
    for (const i of [2, 0, 1]) {
      assert.equal(await engineServing({ headers: { 'x-dynamo-worker-instance-id': ids[i]!.toString() } }), i);
    }
  });

  test('nvext.backend_instance_id above 2^53 in the JSON body is read exactly', async () => {
    const big = ids.findIndex((id) => id > 2n ** 53n);
    assert.ok(big >= 0, 'instance ids are 63-bit');
    assert.equal(await engineServing({ nvextRaw: `{"backend_instance_id":${ids[big]!.toString()}}` }), big);
  });

  test('an unknown instance is 404; no target in direct mode is 400', async () => {
    const unknown = await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'x', max_tokens: 1 }, { 'x-dynamo-worker-instance-id': '12345' });
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as { message: string }).message, /Worker instance 12345 not found/);
    const none = await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'x', max_tokens: 1 });
    assert.equal(none.status, 400);
    assert.match(((await none.json()) as { message: string }).message, /direct needs a target instance/);
  });
});
