import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouterEvent } from '../../../src/protocols/index.js';
import { decodeRouterEvent, encodeRouterEvent, kvEventPublisher, kvEventSubject, LocalEventPlane, subscribeKvEvents } from '../../../src/runtime/index.js';

const STORED: RouterEvent = {
  worker_id: 2252259416447694086n,
  event: {
    event_id: 7,
    dp_rank: 0,
    data: { stored: { parent_hash: 18446744073709551615n, blocks: [{ block_hash: 12345n, tokens_hash: 9223372036854775808n, mm_extra_info: null }] } },
  },
};

test('RouterEvent JSON: upstream field names (newest, with storage_tier), u64 hashes as bare numbers, lossless round trip', () => {
  const text = encodeRouterEvent(STORED);
  assert.equal(
    text,
    '{"worker_id":2252259416447694086,"storage_tier":"device","event":{"event_id":7,"dp_rank":0,"data":{"stored":{"parent_hash":18446744073709551615,"blocks":[{"block_hash":12345,"tokens_hash":9223372036854775808,"mm_extra_info":null}]}}}}',
  );
  assert.deepEqual(decodeRouterEvent(text), STORED);
  const removed: RouterEvent = { worker_id: 1n, event: { event_id: 8, dp_rank: 0, data: { removed: { block_hashes: [1n, 2n] } } } };
  assert.deepEqual(decodeRouterEvent(encodeRouterEvent(removed)), removed);
  assert.deepEqual(decodeRouterEvent('{"worker_id":1,"event":{"event_id":9,"data":"cleared"}}').event, { event_id: 9, data: 'cleared', dp_rank: 0 });
});

test('the 2026 NatsEnvelope form (payload as a byte array) is accepted too', () => {
  const payload = [...Buffer.from(encodeRouterEvent(STORED))];
  const envelope = `{"publisher_id":2252259416447694086,"sequence":0,"published_at":1700000000000,"payload":[${payload.join(',')}]}`;
  assert.deepEqual(decodeRouterEvent(envelope), STORED);
});

test('publisher and subscriber meet on namespace.{ns}.component.{c}.kv-events', async () => {
  assert.equal(kvEventSubject('dynamo', 'backend'), 'namespace.dynamo.component.backend.kv-events');
  const plane = new LocalEventPlane();
  const got: RouterEvent[] = [];
  const bad: Error[] = [];
  const stop = await subscribeKvEvents(plane, 'kvns', 'backend', (e) => got.push(e), (e) => bad.push(e));
  kvEventPublisher(plane, 'kvns', 'backend', STORED.worker_id)(STORED.event);
  kvEventPublisher(plane, 'kvns', 'other', 5n)(STORED.event);
  plane.publish(kvEventSubject('kvns', 'backend'), 'not json');
  assert.deepEqual(got, [STORED]);
  assert.equal(bad.length, 1);
  stop();
  await plane.close();
});
