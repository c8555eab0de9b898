import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { SqliteResponseStore } from '../../../../../src/frontends/http/responses/store/sqlite-store.js';
import type { StoredResponse } from '../../../../../src/frontends/http/responses/store/index.js';
import { serveInProcess } from '../../../../support/in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'response-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const stored = (id: string): StoredResponse => ({ response: { id, output: [] }, inputItems: [{ id: 'msg_1', type: 'message' }], events: [['response.created', '{}']], owner: 'abc' });

test('two connections to one file see each other’s responses, and a reopened file keeps them', async () => {
  const path = join(dir, 'shared.sqlite');
  const a = new SqliteResponseStore({ maxEntries: 10, ttlSecs: 60, path });
  const b = new SqliteResponseStore({ maxEntries: 10, ttlSecs: 60, path });
  await a.put(stored('resp_a'));
  assert.deepEqual(await b.get('resp_a'), stored('resp_a'));
  assert.equal(await b.delete('resp_a'), true);
  assert.equal(await a.get('resp_a'), undefined);
  await a.put(stored('resp_kept'));
  await a.close();
  await b.close();
  const reopened = new SqliteResponseStore({ maxEntries: 10, ttlSecs: 60, path });
  assert.deepEqual(await reopened.get('resp_kept'), stored('resp_kept'));
  await reopened.close();
});

test('the sqlite store keeps at most maxEntries and forgets entries past the TTL', async () => {
  let now = 1_000_000;
  const store = new SqliteResponseStore({ maxEntries: 2, ttlSecs: 10, path: join(dir, 'bounded.sqlite'), now: () => now });
  for (const id of ['a', 'b', 'c']) await store.put(stored(id));
  assert.equal(await store.get('a'), undefined);
  assert.ok(await store.get('b'));
  assert.ok(await store.get('c'));
  await store.put(stored('b'));
  await store.put(stored('d'));
  assert.equal(await store.get('c'), undefined, 'storing b again made it the newest');
  now += 10_000;
  assert.equal(await store.get('b'), undefined);
  assert.equal(await store.delete('d'), false);
  await store.close();
});

test('with --response-store sqlite, a response stored by one frontend is read by another, and after a restart', async () => {
  const args = ['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000', '--response-store', 'sqlite', '--response-store-path', join(dir, 'frontends.sqlite')];
  const first = await serveInProcess(args);
  const second = await serveInProcess(args);
  let firstRunning = true;
  const client = (server: typeof first): OpenAI => new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  try {
    const created = await client(first).responses.create({ model: 'Qwen/Qwen3-0.6B', input: 'shared' });
    assert.deepEqual(await client(second).responses.retrieve(created.id), created);
    const next = await client(second).responses.create({ model: 'Qwen/Qwen3-0.6B', input: 'more', previous_response_id: created.id });
    assert.equal(next.previous_response_id, created.id);
    await first.service.stop();
    firstRunning = false;
    const restarted = await serveInProcess(args);
    try {
      assert.deepEqual(await client(restarted).responses.retrieve(next.id), next);
    } finally {
      await restarted.service.stop();
    }
  } finally {
    if (firstRunning) await first.service.stop();
    await second.service.stop();
  }
});
