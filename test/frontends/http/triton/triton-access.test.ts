// Triton's /v2 routes on `serve` (the mocker's model): API keys guard them like every inference
// route, the health probes stay open, and model load/unload are admin routes.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serveInjected } from '../../../support/in-process.js';

const MODEL = 'Qwen%2FQwen3-0.6B';
type Served = Awaited<ReturnType<typeof serveInjected>>;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('with an API key', () => {
  let served: Served;
  before(async () => {
    served = await serveInjected(['--api-key', 'sekret', '--speedup-ratio', '1000']);
  });
  after(() => served.service.stop());

  test('probes are open; everything else needs the key and refuses in Triton\'s error shape', async () => {
    const v2 = `${served.baseUrl}/v2`;
    assert.equal((await served.fetch(`${v2}/health/live`)).status, 200);
    assert.equal((await served.fetch(`${v2}/health/ready`)).status, 200);
    for (const [path, method] of [['', 'GET'], [`/models/${MODEL}`, 'GET'], [`/models/${MODEL}/infer`, 'POST'], [`/models/${MODEL}/generate`, 'POST'], ['/repository/index', 'POST']] as const) {
      const res = await served.fetch(`${v2}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      assert.equal(res.status, 401, path);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      assert.deepEqual(Object.keys((await res.json()) as object), ['error'], path);
    }
    const wrong = await served.fetch(`${v2}`, { headers: bearer('nope') });
    assert.equal(wrong.status, 401);
    assert.deepEqual(await wrong.json(), { error: 'Invalid API key' });
    const meta = await served.fetch(`${v2}/models/${MODEL}`, { headers: bearer('sekret') });
    assert.equal(meta.status, 200);
    assert.equal(((await meta.json()) as { name: string }).name, 'Qwen/Qwen3-0.6B');
  });

  test('generate and infer answer from the mocker with the key; load/unload take it as admin routes', async () => {
    const v2 = `${served.baseUrl}/v2`;
    const headers = { ...bearer('sekret'), 'content-type': 'application/json' };
    const gen = await served.fetch(`${v2}/models/${MODEL}/generate`, { method: 'POST', headers, body: JSON.stringify({ text_input: 'Hello', max_tokens: 4, ignore_eos: true }) });
    assert.equal(gen.status, 200);
    const body = (await gen.json()) as { text_output: string; finish_reason: string };
    assert.equal(body.finish_reason, 'length');
    const infer = await served.fetch(`${v2}/models/${MODEL}/infer`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['Hello'] }], parameters: { max_tokens: 3, ignore_eos: true } }),
    });
    assert.equal(infer.status, 200);
    const out = (await infer.json()) as { outputs: { name: string; data: string[] }[] };
    assert.deepEqual(out.outputs.find((o) => o.name === 'finish_reason')!.data, ['length']);
    const stream = await served.fetch(`${v2}/models/${MODEL}/generate_stream`, { method: 'POST', headers, body: JSON.stringify({ text_input: 'Hello', max_tokens: 5, ignore_eos: true, return_num_output_tokens: true }) });
    assert.equal(stream.status, 200);
    const events = (await stream.text()).split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)) as { num_output_tokens: number; finish_reason: string });
    assert.equal(events.reduce((n, e) => n + e.num_output_tokens, 0), 5);
    assert.equal(events.at(-1)!.finish_reason, 'length');
    const noKey = await served.fetch(`${v2}/repository/models/${MODEL}/unload`, { method: 'POST' });
    assert.equal(noKey.status, 401);
    const unload = await served.fetch(`${v2}/repository/models/${MODEL}/unload`, { method: 'POST', headers: bearer('sekret') });
    assert.equal(unload.status, 200);
    assert.equal((await served.fetch(`${v2}/models/${MODEL}/ready`, { headers: bearer('sekret') })).status, 400);
    const load = await served.fetch(`${v2}/repository/models/${MODEL}/load`, { method: 'POST', headers: bearer('sekret') });
    assert.equal(load.status, 200);
    assert.equal((await served.fetch(`${v2}/models/${MODEL}/ready`, { headers: bearer('sekret') })).status, 200);
  });
});

describe('without an API key', () => {
  let served: Served;
  before(async () => {
    served = await serveInjected(['--speedup-ratio', '1000']);
  });
  after(() => served.service.stop());

  test('unload and load are served (the admin API is on by default, as upstream)', async () => {
    const v2 = `${served.baseUrl}/v2`;
    assert.equal((await served.fetch(`${v2}/repository/models/${MODEL}/unload`, { method: 'POST' })).status, 200);
    assert.equal((await served.fetch(`${v2}/models/${MODEL}/ready`)).status, 400);
    assert.equal((await served.fetch(`${v2}/repository/models/${MODEL}/load`, { method: 'POST' })).status, 200);
    assert.equal((await served.fetch(`${v2}/models/${MODEL}/ready`)).status, 200);
  });
});

describe('with the admin API off (DYN_ENABLE_FRONTEND_ADMIN_API=false)', () => {
  let served: Served;
  before(async () => {
    served = await serveInjected(['--speedup-ratio', '1000'], { DYN_ENABLE_FRONTEND_ADMIN_API: 'false' });
  });
  after(() => served.service.stop());

  test('load and unload answer 404 in Triton\'s shape; the rest is served', async () => {
    const v2 = `${served.baseUrl}/v2`;
    assert.equal((await served.fetch(`${v2}/models/${MODEL}`)).status, 200);
    const res = await served.fetch(`${v2}/repository/models/${MODEL}/unload`, { method: 'POST' });
    assert.equal(res.status, 404);
    assert.match(((await res.json()) as { error: string }).error, /admin API is off/);
    assert.equal((await served.fetch(`${v2}/models/${MODEL}/ready`)).status, 200);
  });
});
