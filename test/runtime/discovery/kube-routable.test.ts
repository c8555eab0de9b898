// Upstream's reader cases (reference/operate-faults.md §6, kube/daemon/state.rs), on the join.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMetadata } from '../../../src/runtime/discovery/kube-metadata.js';
import { RoutableWorkers, type EndpointSliceLike, type WorkerMetadataLike } from '../../../src/runtime/discovery/kube-routable.js';

const slice = (name: string, pods: Array<[string, string, boolean]>): EndpointSliceLike => ({
  metadata: { name },
  endpoints: pods.map(([pod, uid, ready]) => ({ conditions: { ready }, targetRef: { name: pod, uid } })),
});

const cr = (name: string, ownerUid: string, data: unknown = { endpoints: { [`ns/c/e/${name}`]: { type: 'Endpoint', v: name } } }, uid = `cr-${name}`): WorkerMetadataLike => ({
  metadata: { name, uid, ownerReferences: [{ kind: 'Pod', name, uid: ownerUid }] },
  spec: { data },
});

const keys = (m: Map<string, string>): string[] => [...m.keys()].sort();

test('a worker is routable only when ready in a slice and described by a CR', () => {
  const r = new RoutableWorkers();
  assert.deepEqual(keys(r.entries([slice('s', [['w1', 'u1', true]])], [])), [], 'ready without a CR');
  assert.deepEqual(keys(r.entries([], [cr('w1', 'u1')])), [], 'a CR without readiness');
  assert.deepEqual(keys(r.entries([slice('s', [['w1', 'u1', true]])], [cr('w1', 'u1')])), ['v1/instances/ns/c/e/w1'], 'a CR arriving after readiness');
  assert.deepEqual(keys(r.entries([slice('s', [['w1', 'u1', false]])], [cr('w1', 'u1')])), [], 'not ready');
  assert.deepEqual(keys(r.entries([], [cr('w1', 'u1')])), [], 'an empty readiness rebuild removes it');
});

test('a CR owned by pod U1 does not join pod U2 until U2 has its own CR', () => {
  const r = new RoutableWorkers();
  const ready = [slice('s', [['w1', 'u2', true]])];
  assert.deepEqual(keys(r.entries(ready, [cr('w1', 'u1')])), []);
  assert.deepEqual(keys(r.entries(ready, [cr('w1', 'u2')])), ['v1/instances/ns/c/e/w1']);
});

test('duplicate slices keep a pod ready; conflicting uids resolve to none until one goes', () => {
  const r = new RoutableWorkers();
  const a = slice('a', [['w1', 'u1', true]]);
  const b = slice('b', [['w1', 'u1', true]]);
  assert.deepEqual(keys(r.entries([a, b], [cr('w1', 'u1')])), ['v1/instances/ns/c/e/w1']);
  assert.deepEqual(keys(r.entries([b], [cr('w1', 'u1')])), ['v1/instances/ns/c/e/w1'], 'one of two slices gone');
  assert.deepEqual(keys(r.entries([slice('a', [['w1', 'u1', false]]), b], [cr('w1', 'u1')])), ['v1/instances/ns/c/e/w1'], 'one not ready, one ready');
  const conflicting = slice('c', [['w1', 'u9', true]]);
  assert.deepEqual(keys(r.entries([a, conflicting], [cr('w1', 'u1')])), [], 'fail closed');
  assert.deepEqual(keys(r.entries([a], [cr('w1', 'u1')])), ['v1/instances/ns/c/e/w1'], 'the conflict removed');
});

test('null maps decode as empty; a null spec.data reuses the last metadata only for the same CR and owner', () => {
  assert.deepEqual(parseMetadata({ endpoints: null, model_cards: { k: { type: 'Model' } } }), { endpoints: {}, model_cards: { k: { type: 'Model' } }, event_channels: {} });
  assert.equal(parseMetadata(null), null);
  const r = new RoutableWorkers();
  const ready = [slice('s', [['w1', 'u1', true]])];
  r.entries(ready, [cr('w1', 'u1')]);
  assert.deepEqual(keys(r.entries(ready, [cr('w1', 'u1', null)])), ['v1/instances/ns/c/e/w1'], 'same CR uid and owner: cached');
  assert.deepEqual(keys(r.entries(ready, [cr('w1', 'u1', null, 'cr-recreated')])), [], 'another CR uid: not cached');
});

test('all three maps become discovery keys under their buckets', () => {
  const r = new RoutableWorkers();
  const data = { endpoints: { 'ns/c/e/1': { a: 1 } }, model_cards: { 'ns/c/e/1': { b: 2 } }, event_channels: { 'ns/topic/kv/1': { c: 3 } } };
  const out = r.entries([slice('s', [['w1', 'u1', true]])], [cr('w1', 'u1', data)]);
  assert.deepEqual([...out], [
    ['v1/instances/ns/c/e/1', '{"a":1}'],
    ['v1/mdc/ns/c/e/1', '{"b":2}'],
    ['v1/event_channels/ns/topic/kv/1', '{"c":3}'],
  ]);
});
