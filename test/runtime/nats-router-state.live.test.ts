// The router snapshot store on a real nats-server with JetStream: a read whose chunks vanish (the
// object replaced by another router's save, or purged) ends instead of waiting forever.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NatsRouterStateStore, SNAPSHOT_BUCKET } from '../../src/runtime/nats-router-state.js';
import { startNats, type InfraServer } from '../support/infra-servers.js';

/** A read that never ends fails the test instead of holding the suite. */
const BOUND = { timeout: 60_000 };

let nats: InfraServer;
let nc: NatsConnection;

before(async () => {
  nats = await startNats({ jetStream: true });
  nc = await connect({ servers: nats.url });
});

after(async () => {
  await nc?.close();
  await nats?.dispose();
});

/** Saves `bytes`, then removes its chunks and leaves its info: what a reader sees mid-replacement. */
async function saveWithoutChunks(store: NatsRouterStateStore, bytes: Uint8Array): Promise<void> {
  await store.save(bytes);
  const objects = await new Objm(nc).open(SNAPSHOT_BUCKET);
  const info = (await objects.info(store.objectName))!;
  const jsm = await jetstreamManager(nc);
  await jsm.streams.purge(`OBJ_${SNAPSHOT_BUCKET}`, { filter: `$O.${SNAPSHOT_BUCKET}.C.${info.nuid}` });
}

test('a snapshot saved again during a read is read from its new version', BOUND, async () => {
  const store = new NatsRouterStateStore(nc, 'namespace.replaced.component.backend');
  await saveWithoutChunks(store, new Uint8Array([1, 2, 3]));
  const loading = store.load();
  await new Promise((r) => setTimeout(r, 300));
  await store.save(new Uint8Array([4, 5, 6, 7]));
  assert.deepEqual([...(await loading)!], [4, 5, 6, 7]);
});

test('a snapshot whose chunks are gone and that nobody replaces is an error, not a wait', BOUND, async () => {
  const store = new NatsRouterStateStore(nc, 'namespace.stalled.component.backend');
  await saveWithoutChunks(store, new Uint8Array([9, 9]));
  await assert.rejects(store.load(), /reading the router snapshot radix-bucket\/namespace-stalled-component-backend\/radix-state \(2 bytes\) stalled/);
});

test('a deleted snapshot reads as none; an intact one as its bytes', BOUND, async () => {
  const store = new NatsRouterStateStore(nc, 'namespace.plain.component.backend');
  assert.equal(await store.load(), null);
  await store.save(new Uint8Array(300_000).fill(7));
  const read = (await store.load())!;
  assert.equal(read.length, 300_000);
  assert.ok(read.every((b) => b === 7));
  await store.reset();
  assert.equal(await store.load(), null);
});
