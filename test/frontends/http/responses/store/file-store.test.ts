import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { defaultFileStoreDir, FileResponseStore } from '../../../../../src/frontends/http/responses/store/file-store.js';
import type { StoredResponse } from '../../../../../src/frontends/http/responses/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'file-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => join(root, `store-${dirs++}`);

const stored = (id: string): StoredResponse => ({ response: { id }, inputItems: [], events: [], owner: null });

test('one JSON file per response, named by its id; puts in the same millisecond keep their order for the bound', async () => {
  const path = freshDir();
  const now = 1_000_000;
  const store = await FileResponseStore.open({ path, maxEntries: 2, ttlSecs: 60, now: () => now });
  for (const id of ['resp_c', 'resp_b', 'resp_a']) await store.put(stored(id));
  assert.deepEqual(readdirSync(path).sort(), ['resp_a.json', 'resp_b.json']);
  await store.put(stored('resp_b'));
  await store.put(stored('resp_z'));
  assert.deepEqual(readdirSync(path).sort(), ['resp_b.json', 'resp_z.json'], 'storing b again made it newer than a');
});

test('the TTL counts from the put; expired files go at the next put, or when the store opens', async () => {
  const path = freshDir();
  let now = 5_000_000;
  const store = await FileResponseStore.open({ path, maxEntries: 10, ttlSecs: 10, now: () => now });
  await store.put(stored('resp_old'));
  now += 5_000;
  await store.put(stored('resp_young'));
  now += 5_000;
  assert.equal(await store.get('resp_old'), undefined);
  assert.equal(await store.delete('resp_old'), false);
  assert.ok(await store.get('resp_young'));
  await store.put(stored('resp_new'));
  assert.deepEqual(readdirSync(path).sort(), ['resp_new.json', 'resp_young.json']);
  now += 5_000;
  const reopened = await FileResponseStore.open({ path, maxEntries: 10, ttlSecs: 10, now: () => now });
  assert.deepEqual(readdirSync(path), ['resp_new.json']);
  assert.ok(await reopened.get('resp_new'));
});

test('a temporary file a dead writer left is removed once stale; a fresh one is left to its writer', async () => {
  const path = freshDir();
  const store = await FileResponseStore.open({ path, maxEntries: 10, ttlSecs: 600 });
  writeFileSync(join(path, '.resp_x.json.1.dead.tmp'), '{');
  writeFileSync(join(path, '.resp_y.json.2.live.tmp'), '{');
  const longAgo = (Date.now() - 120_000) / 1000;
  utimesSync(join(path, '.resp_x.json.1.dead.tmp'), longAgo, longAgo);
  await store.put(stored('resp_1'));
  assert.deepEqual(readdirSync(path).sort(), ['.resp_y.json.2.live.tmp', 'resp_1.json']);
});

test('an id that is not a stored response id never names a file', async () => {
  const store = await FileResponseStore.open({ path: freshDir(), maxEntries: 10, ttlSecs: 600 });
  await assert.rejects(store.put(stored('../escape')), /not a stored response id/);
  await assert.rejects(store.get('../../etc/passwd'), /not a stored response id/);
});

test('the default directory is per user under the temporary directory, made private, and refused when it is not', async () => {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = root;
  try {
    const dir = defaultFileStoreDir();
    assert.equal(dir, join(root, `dynamo-ts-responses-${process.getuid!()}`));
    const store = await FileResponseStore.open({ maxEntries: 10, ttlSecs: 600 });
    await store.put(stored('resp_default'));
    assert.deepEqual(readdirSync(dir), ['resp_default.json']);
    chmodSync(dir, 0o755);
    await assert.rejects(FileResponseStore.open({ maxEntries: 10, ttlSecs: 600 }), /not a private directory of this user/);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});

test('holding many responses, it sweeps once the puts since the last sweep number 1% of them', async () => {
  const path = freshDir();
  const now = 9_000_000;
  const store = await FileResponseStore.open({ path, maxEntries: 300, ttlSecs: 60, now: () => now });
  for (let i = 0; i < 300; i++) await store.put(stored(`resp_${i}`));
  const files = (): number => readdirSync(path).length;
  await store.put(stored('resp_300'));
  await store.put(stored('resp_301'));
  assert.equal(files(), 302, 'two puts past the bound, fewer than 1% of 300');
  await store.put(stored('resp_302'));
  assert.equal(files(), 300);
  assert.equal(await store.get('resp_2'), undefined);
  assert.ok(await store.get('resp_3'));
});
