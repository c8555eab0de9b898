// Every response store by name (memory, file, etcd, nats) through the same table of checks: a
// stored response reads back whole, deletes once, is bounded by the entry count (oldest first, a
// stored-again response counting as new) and by the TTL; the shared stores show one opening's
// responses to another, and the durable ones keep them when reopened. etcd and nats-server are the
// real binaries; one not running (or a NATS without JetStream) fails the open with what to do.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { Etcd3 } from 'etcd3';
import { ETCD_PREFIX } from '../../../../../src/frontends/http/responses/store/etcd-store.js';
import { NATS_BUCKET } from '../../../../../src/frontends/http/responses/store/nats-store.js';
import type { MemoryResponseStore } from '../../../../../src/frontends/http/responses/store/memory-store.js';
import { openResponseStore, type ResponseStore, type ResponseStoreSettings, type StoredResponse } from '../../../../../src/frontends/http/responses/store/index.js';
import { ServiceUnreachableError, type ResponseStoreName } from '../../../../../src/protocols/index.js';
import { connectNats } from '../../../../../src/runtime/index.js';
import { startEtcd, startNats, type InfraServer } from '../../../../support/infra-servers.js';
import { freePort } from '../../../../support/processes.js';

const stored = (id: string, owner: string | null = 'c0ffee'): StoredResponse => ({
  response: { id, object: 'response', status: 'completed', output: [{ id: 'msg_1', type: 'message' }] },
  inputItems: [{ id: 'msg_0', type: 'message', role: 'user', content: 'hi' }],
  events: [['response.created', '{"type":"response.created","sequence_number":0}']],
  owner,
});

/** Polls until `check` holds; fails after `timeoutMs` (a generous bound: only that it happens is asserted). */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let etcd: InfraServer;
let nats: InfraServer;
const dirs: string[] = [];
before(async () => {
  [etcd, nats] = await Promise.all([startEtcd(), startNats({ jetStream: true })]);
});
after(async () => {
  await Promise.all([etcd?.dispose(), nats?.dispose()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface StoreCase {
  name: ResponseStoreName;
  /** Another opening of the same settings sees this one's responses. */
  shared: boolean;
  /** A reopened store still has them. */
  durable: boolean;
  /** Where a fresh, empty store of this kind is. */
  fresh(): Promise<Partial<ResponseStoreSettings>>;
  /** How many entries its storage holds (files, keys, messages), unknown to the store's reads or not. */
  held(where: Partial<ResponseStoreSettings>, store: ResponseStore): Promise<number>;
}

const CASES: StoreCase[] = [
  { name: 'memory', shared: false, durable: false, fresh: async () => ({}), held: async (_, store) => (store as MemoryResponseStore).size },
  {
    name: 'file',
    shared: true,
    durable: true,
    async fresh() {
      const path = mkdtempSync(join(tmpdir(), 'response-store-'));
      dirs.push(path);
      return { path };
    },
    held: async ({ path }) => readdirSync(path!).filter((name) => name.endsWith('.json')).length,
  },
  {
    name: 'etcd',
    shared: true,
    durable: true,
    async fresh() {
      const client = new Etcd3({ hosts: etcd.url });
      await client.delete().prefix(ETCD_PREFIX);
      client.close();
      return { etcdEndpoints: [etcd.url] };
    },
    async held() {
      const client = new Etcd3({ hosts: etcd.url });
      const count = await client.getAll().prefix(ETCD_PREFIX).count();
      client.close();
      return count;
    },
  },
  {
    name: 'nats',
    shared: true,
    durable: true,
    async fresh() {
      const nc = await connectNats(nats.url);
      await (await jetstreamManager(nc)).streams.delete(`KV_${NATS_BUCKET}`).catch(() => undefined);
      await nc.close();
      return { nats: { server: nats.url } };
    },
    async held() {
      const nc = await connectNats(nats.url);
      const info = await (await jetstreamManager(nc)).streams.info(`KV_${NATS_BUCKET}`);
      await nc.close();
      return info.state.messages;
    },
  },
];

for (const store of CASES) {
  describe(`the ${store.name} response store`, () => {
    const opened: ResponseStore[] = [];
    after(async () => {
      await Promise.all(opened.map((s) => s.close()));
    });
    let where: Partial<ResponseStoreSettings>;
    const open = async (bounds: Partial<ResponseStoreSettings> = {}): Promise<ResponseStore> => {
      const s = await openResponseStore({ name: store.name, maxEntries: 100, ttlSecs: 600, ...where, ...bounds });
      opened.push(s);
      return s;
    };
    const fresh = async (): Promise<void> => {
      where = await store.fresh();
    };

    test('a stored response reads back whole; unknown and deleted ids read as nothing', async () => {
      await fresh();
      const s = await open();
      await s.put(stored('resp_a'));
      await s.put(stored('resp_nobody', null));
      assert.deepEqual(await s.get('resp_a'), stored('resp_a'));
      assert.deepEqual(await s.get('resp_nobody'), stored('resp_nobody', null));
      assert.equal(await s.get('resp_unknown'), undefined);
      assert.equal(await s.delete('resp_unknown'), false);
      assert.equal(await s.delete('resp_a'), true);
      assert.equal(await s.get('resp_a'), undefined);
      assert.equal(await s.delete('resp_a'), false);
    });

    test('a response of thousands of events (a long streamed answer) is stored whole', async () => {
      await fresh();
      const s = await open();
      const long = stored('resp_long');
      for (let i = 0; i < 12_000; i++) {
        long.events.push(['response.output_text.delta', JSON.stringify({ type: 'response.output_text.delta', sequence_number: i, item_id: 'msg_1', output_index: 0, content_index: 0, delta: ` word${i}`, logprobs: [] })]);
      }
      await s.put(long);
      assert.deepEqual(await s.get('resp_long'), long);
    });

    test('it keeps at most maxEntries, dropping the oldest; a response stored again is the newest', async () => {
      await fresh();
      const s = await open({ maxEntries: 2 });
      for (const id of ['resp_a', 'resp_b', 'resp_c']) await s.put(stored(id));
      assert.equal(await s.get('resp_a'), undefined);
      assert.ok(await s.get('resp_b'));
      assert.ok(await s.get('resp_c'));
      await s.put(stored('resp_b'));
      await s.put(stored('resp_d'));
      assert.equal(await s.get('resp_c'), undefined, 'storing b again made it newer than c');
      assert.ok(await s.get('resp_b'));
      assert.ok(await s.get('resp_d'));
      assert.equal(await store.held(where, s), 2);
    });

    test('a response past the TTL reads as unknown and cannot be deleted', async () => {
      await fresh();
      const s = await open({ ttlSecs: 1 });
      await s.put(stored('resp_short'));
      await until('the response to expire', async () => (await s.get('resp_short')) === undefined);
      assert.equal(await s.delete('resp_short'), false);
      // Gone from the storage too, by the service's own expiry or by the next put.
      await s.put(stored('resp_next'));
      await until('the expired entry to be removed', async () => (await store.held(where, s)) === 1);
    });

    if (store.shared) {
      test('another opening (another frontend process) reads, deletes and bounds the same responses', async () => {
        await fresh();
        const a = await open({ maxEntries: 3 });
        const b = await open({ maxEntries: 3 });
        await a.put(stored('resp_1'));
        assert.deepEqual(await b.get('resp_1'), stored('resp_1'));
        assert.equal(await b.delete('resp_1'), true);
        assert.equal(await a.get('resp_1'), undefined);
        for (const id of ['resp_2', 'resp_3']) await a.put(stored(id));
        for (const id of ['resp_4', 'resp_5']) await b.put(stored(id));
        assert.equal(await a.get('resp_2'), undefined, "b's puts dropped a's oldest");
        for (const id of ['resp_3', 'resp_4', 'resp_5']) assert.ok(await a.get(id), id);
      });
    }

    if (store.durable) {
      test('closed and opened again, it still has its responses', async () => {
        await fresh();
        const first = await open();
        await first.put(stored('resp_kept'));
        await first.close();
        const again = await open();
        assert.deepEqual(await again.get('resp_kept'), stored('resp_kept'));
      });
    }
  });
}

describe('a cluster store that cannot open fails the start, saying what to do', () => {
  const unreachable = (service: string) => (err: unknown) =>
    err instanceof ServiceUnreachableError && err.service === service && /--response-store file/.test(err.fix);

  test('etcd not running', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    await assert.rejects(openResponseStore({ name: 'etcd', maxEntries: 10, ttlSecs: 60, etcdEndpoints: [url] }), unreachable('etcd'));
  });

  test('NATS not running, or without JetStream', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    await assert.rejects(openResponseStore({ name: 'nats', maxEntries: 10, ttlSecs: 60, nats: { server: url } }), unreachable('NATS'));
    const plain = await startNats();
    try {
      await assert.rejects(openResponseStore({ name: 'nats', maxEntries: 10, ttlSecs: 60, nats: { server: plain.url } }), unreachable('NATS JetStream'));
    } finally {
      await plain.dispose();
    }
  });
});
