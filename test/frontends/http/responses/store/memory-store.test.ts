import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryResponseStore } from '../../../../../src/frontends/http/responses/store/memory-store.js';
import type { StoredResponse } from '../../../../../src/frontends/http/responses/store/index.js';

const stored = (id: string): StoredResponse => ({ response: { id }, inputItems: [], events: [], owner: null });

test('the memory store keeps at most maxEntries, dropping the oldest', async () => {
  const store = new MemoryResponseStore({ maxEntries: 2, ttlSecs: 60 });
  for (const id of ['a', 'b', 'c']) await store.put(stored(id));
  assert.equal(await store.get('a'), undefined);
  assert.deepEqual((await store.get('b'))?.response, { id: 'b' });
  assert.deepEqual((await store.get('c'))?.response, { id: 'c' });
  assert.equal(store.size, 2);
});

test('an entry older than the TTL reads as unknown and is dropped', async () => {
  let now = 0;
  const store = new MemoryResponseStore({ maxEntries: 10, ttlSecs: 10, now: () => now });
  await store.put(stored('old'));
  now = 5_000;
  await store.put(stored('young'));
  now = 10_000;
  assert.equal(await store.get('old'), undefined);
  assert.equal(await store.delete('old'), false);
  assert.ok(await store.get('young'));
  now = 14_000;
  await store.put(stored('new'));
  assert.equal(store.size, 2, 'a put drops the expired entries at the front');
  now = 15_000;
  assert.equal(await store.delete('young'), false);
  assert.equal(await store.delete('new'), true);
  assert.equal(await store.get('new'), undefined);
});
