import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  decodeFileKey,
  encodeFileKey,
  FileDiscoveryBackend,
  KeyExistsError,
  MemDiscoveryBackend,
  namespaceScope,
  type DiscoveryBackend,
  type StoreEvent,
} from '../../../src/runtime/index.js';
import { eventually } from '../../support/in-process.js';

async function exerciseBackend(a: DiscoveryBackend, b: DiscoveryBackend): Promise<void> {
  const lease = await a.grantLease();
  await lease.create('v1/mdc/ns/c/e/1', '{"v":1}');
  const seen: StoreEvent[] = [];
  const stop = await b.watch('v1/mdc/ns/', (e) => seen.push(e));
  assert.deepEqual(seen, [{ type: 'put', key: 'v1/mdc/ns/c/e/1', value: '{"v":1}' }], 'get-and-watch lists what exists');
  await assert.rejects(lease.create('v1/mdc/ns/c/e/1', '{"v":2}'), KeyExistsError, 'create-if-absent');
  const other = await b.grantLease();
  assert.notEqual(other.id, lease.id);
  await other.create('v1/mdc/ns/c/e/2', '{"v":3}');
  await other.create('v1/mdc/elsewhere/c/e/2', '{}');
  await eventually(() => seen.length === 2, 5000, 'put event');
  assert.deepEqual(seen[1], { type: 'put', key: 'v1/mdc/ns/c/e/2', value: '{"v":3}' });
  await lease.revoke();
  await eventually(() => seen.length === 3, 5000, 'delete event');
  assert.deepEqual(seen[2], { type: 'delete', key: 'v1/mdc/ns/c/e/1' });
  stop();
  await other.revoke();
}

test('mem backend: create-if-absent, get-and-watch, revoke deletes', async () => {
  const scope = `t-${Math.random()}`;
  await exerciseBackend(new MemDiscoveryBackend(scope), new MemDiscoveryBackend(scope));
});

test('file backend: same contract across two backends sharing a directory', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'dyn-file-kv-'));
  try {
    const a = new FileDiscoveryBackend({ root, leaseTtlSecs: 10 });
    const b = new FileDiscoveryBackend({ root, leaseTtlSecs: 10 });
    await exerciseBackend(a, b);
    await a.close();
    await b.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('file backend layout: bucket folders, percent-encoded key files, JSON contents', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'dyn-file-kv-'));
  try {
    const backend = new FileDiscoveryBackend({ root, leaseTtlSecs: 10 });
    const lease = await backend.grantLease();
    await lease.create('v1/instances/dynamo/backend/generate/17216e63492ef21f', '{"x":1}');
    assert.deepEqual(readdirSync(path.join(root, 'v1/instances')), ['dynamo%2Fbackend%2Fgenerate%2F17216e63492ef21f']);
    assert.equal(readFileSync(path.join(root, 'v1/instances/dynamo%2Fbackend%2Fgenerate%2F17216e63492ef21f'), 'utf8'), '{"x":1}');
    assert.equal(encodeFileKey('a-b_c.d/é'), 'a%2Db%5Fc%2Ed%2F%C3%A9');
    assert.equal(decodeFileKey('a%2Db%5Fc%2Ed%2F%C3%A9'), 'a-b_c.d/é');
    await lease.revoke();
    assert.deepEqual(readdirSync(path.join(root, 'v1/instances')), []);
    await backend.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('file backend: a file whose owner stopped touching it expires after the TTL', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'dyn-file-kv-'));
  try {
    const backend = new FileDiscoveryBackend({ root, leaseTtlSecs: 1 });
    const lease = await backend.grantLease();
    await lease.create('v1/mdc/ns/c/e/1', '{}');
    const seen: StoreEvent[] = [];
    const stop = await backend.watch('v1/mdc/', (e) => seen.push(e));
    assert.equal(seen.length, 1);
    // As if the owner died: its mtime falls behind the TTL.
    const old = new Date(Date.now() - 5000);
    utimesSync(path.join(root, 'v1/mdc', encodeFileKey('ns/c/e/1')), old, old);
    await eventually(() => seen.length === 2, 5000, 'expiry');
    assert.equal(seen[1]!.type, 'delete');
    assert.deepEqual(readdirSync(path.join(root, 'v1/mdc')), []);
    stop();
    await lease.revoke();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('namespace scoping (reference/http.md §6.4, §10.5)', () => {
  const prefix = namespaceScope({ namespacePrefix: 'ns' });
  for (const ns of ['ns', 'ns-abc123']) assert.ok(prefix(ns), ns);
  for (const ns of ['ns2', 'nsother-abc123', 'other-ns', '']) assert.ok(!prefix(ns), ns);
  const dashed = namespaceScope({ namespacePrefix: 'ns-' });
  assert.ok(dashed('ns-abc'));
  assert.ok(!dashed('ns2-abc'));
  const dgd = namespaceScope({ namespacePrefix: 'myns-dgd' });
  assert.ok(dgd('myns-dgd'));
  assert.ok(!dgd('myns-dgd2'));
  const strict = namespaceScope({ namespacePrefix: 'p', strict: true });
  for (const ns of ['p', 'p-legacy', 'p-0123abcd']) assert.ok(strict(ns), ns);
  for (const ns of ['p-other', 'p-0123ABCD', 'p-0123abcde']) assert.ok(!strict(ns), ns);
  assert.ok(namespaceScope({ namespace: 'dynamo' })('anything'));
  assert.ok(namespaceScope({})('anything'));
  assert.ok(namespaceScope({ namespace: 'a' })('a'));
  assert.ok(!namespaceScope({ namespace: 'a' })('a-1'));
  assert.ok(namespaceScope({ namespace: 'a', namespacePrefix: 'b' })('b-1'), 'prefix wins');
});
