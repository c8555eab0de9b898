// Request ids: random UUIDs in the shape clients and logs know from crypto.randomUUID.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomUuid } from '../../src/runtime/index.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('randomUuid writes version 4 UUIDs as crypto.randomUUID does, each a new one', () => {
  const seen = new Set<string>();
  // More than one batch of random bytes, so that a refill is crossed.
  for (let i = 0; i < 1000; i++) {
    const id = randomUuid();
    assert.match(id, UUID_V4);
    seen.add(id);
  }
  assert.equal(seen.size, 1000);
});
