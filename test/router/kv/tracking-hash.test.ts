// Keyed tracking identities (--router-tracking-hash keyed-xxh3-v1): the synchronous keyed BLAKE3
// agrees with a reference implementation at every tree shape, and the identities match upstream's
// published vector bit for bit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBLAKE3 } from 'hash-wasm';
import { blake3Keyed } from '../../../src/router/kv/tracking/blake3-keyed.js';
import { PUBLIC_TRACKING, TrackingKey } from '../../../src/router/kv/tracking/index.js';
import { computeLocalBlockHashes, computeSequenceHashes } from '../../../src/protocols/index.js';

test('keyed BLAKE3 matches the reference across block, chunk and tree boundaries', async () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + 3) & 255);
  for (const length of [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 3072, 3073, 4096, 5000, 9000]) {
    const input = Uint8Array.from({ length }, (_, i) => (i * 31) & 255);
    const reference = await createBLAKE3(256, key);
    reference.init();
    reference.update(input);
    assert.equal(Buffer.from(blake3Keyed(key, input)).toString('hex'), reference.digest('hex'), `${length} bytes`);
  }
});

test("keyed identities reproduce upstream's vector and depend on every part of the scope", () => {
  const key = new TrackingKey(new Uint8Array(32).fill(0x5a), '2026-01');
  const tokens = Array.from({ length: 12 }, (_, i) => i);
  const hashes = key.scoped({ model: 'model-a', routingGroup: 'tenant-a' }).sequenceHashes(tokens, 4, { cacheNamespace: 'cache-a', loraName: 'adapter-a' }, []);
  assert.deepEqual(hashes, [4363769719052127296n, 14998523962162619427n, 13920914207884994756n]);
  const base = key.scoped({ model: 'm', routingGroup: 'g' }).sequenceHashes(tokens, 4, {}, []);
  assert.notDeepEqual(key.scoped({ model: 'm', routingGroup: 'g' }).sequenceHashes(tokens, 4, { loraName: 'x' }, []), base);
  assert.notDeepEqual(key.scoped({ model: 'm', routingGroup: 'g' }).sequenceHashes(tokens, 4, { cacheNamespace: 'x' }, []), base);
  assert.notDeepEqual(key.scoped({ model: 'm', routingGroup: 'h' }).sequenceHashes(tokens, 4, {}, []), base);
  assert.deepEqual(key.scoped({ model: 'm', routingGroup: 'g' }).sequenceHashes(tokens, 4, { loraName: '' }, []), base, 'an empty salt counts as none');
  const local = computeLocalBlockHashes(tokens, 4);
  assert.deepEqual(PUBLIC_TRACKING.sequenceHashes(tokens, 4, {}, local), computeSequenceHashes(local), 'public mode is the public chain');
  assert.throws(() => new TrackingKey(new Uint8Array(16), 'a'), /exactly 32 bytes; got 16/);
});
