import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseKeysFile } from '../../src/launch/api-keys.js';
import { anyKeyOf, ApiKeys, bearerToken } from '../../src/protocols/index.js';

test('ApiKeys accepts exactly its keys; an empty set requires nothing', () => {
  const keys = new ApiKeys(['alpha', 'beta', '']);
  assert.equal(keys.required, true);
  assert.equal(keys.size, 2, 'empty keys are ignored');
  for (const k of ['alpha', 'beta']) assert.equal(keys.accepts(k), true, k);
  for (const k of ['alph', 'alphaa', 'ALPHA', '', undefined]) assert.equal(keys.accepts(k), false, String(k));
  keys.replace(['gamma']);
  assert.deepEqual([keys.accepts('alpha'), keys.accepts('gamma')], [false, true]);
  keys.replace([]);
  assert.equal(keys.required, false);
  assert.equal(keys.accepts('gamma'), false);
});

test('anyKeyOf: required when one source is, accepts what any source accepts', () => {
  const shared = new ApiKeys();
  const grpcOnly = new ApiKeys(['token']);
  const both = anyKeyOf([shared, grpcOnly]);
  assert.equal(both.required, true);
  assert.equal(both.accepts('token'), true);
  shared.replace(['key']);
  assert.equal(both.accepts('key'), true, 'follows later changes of a source');
  assert.equal(anyKeyOf([new ApiKeys()]).required, false);
});

test('bearerToken reads `Bearer <token>` only', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer   abc  '), 'abc');
  for (const h of [undefined, '', 'abc', 'Basic abc', 'Bearer', 'Bearer a b']) assert.equal(bearerToken(h), undefined, String(h));
});

test('a keys file: one key per line, blank lines and # comments skipped', () => {
  assert.deepEqual(parseKeysFile('# ops\r\nk1\n\n   k2  \n  # old: k0\nk#3\n'), ['k1', 'k2', 'k#3']);
});
