// Stored responses through the official openai client against `serve --mocker-output
// echo-last-user`: retrieve, replay, input items, delete, cancel, continuation with
// previous_response_id, and with API keys each key's responses kept to itself. Run for every
// response store; with a shared one (file, etcd, nats) through two frontends on the same store,
// one creating and the other reading, deleting and continuing (etcd and nats-server are the real
// binaries).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ResponseStoreName } from '../../../../src/protocols/index.js';
import { serveInProcess } from '../../../support/in-process.js';
import { startEtcd, startNats, type InfraServer } from '../../../support/infra-servers.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const ECHO = ['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000'];

type Served = Awaited<ReturnType<typeof serveInProcess>>;

const clientOf = (server: Served, apiKey = 'unused'): OpenAI => new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey, maxRetries: 0 });

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

let etcd: InfraServer;
let nats: InfraServer;
const dir = mkdtempSync(join(tmpdir(), 'stored-responses-'));
before(async () => {
  [etcd, nats] = await Promise.all([startEtcd(), startNats({ jetStream: true })]);
});
after(async () => {
  await Promise.all([etcd?.dispose(), nats?.dispose()]);
  rmSync(dir, { recursive: true, force: true });
});

interface StoreCase {
  name: ResponseStoreName;
  /** Whether a second frontend on the same settings shares the store (else the one frontend serves both sides). */
  shared: boolean;
  /** The flags and environment that put a frontend on this store. */
  where(): { args: string[]; env: Record<string, string> };
}

const STORES: StoreCase[] = [
  { name: 'memory', shared: false, where: () => ({ args: [], env: {} }) },
  { name: 'file', shared: true, where: () => ({ args: ['--response-store-path', dir], env: {} }) },
  { name: 'etcd', shared: true, where: () => ({ args: [], env: { ETCD_ENDPOINTS: etcd.url } }) },
  { name: 'nats', shared: true, where: () => ({ args: [], env: { NATS_SERVER: nats.url } }) },
];

/** The frontends of one case: the one that creates, and the one that reads (the same one for a store that is not shared). */
async function frontends(store: StoreCase, extra: string[] = []): Promise<{ creating: Served; reading: Served; stop(): Promise<void> }> {
  const { args, env } = store.where();
  const start = (): Promise<Served> => serveInProcess([...ECHO, '--response-store', store.name, ...args, ...extra], env);
  const creating = await start();
  const reading = store.shared ? await start() : creating;
  return {
    creating,
    reading,
    async stop() {
      await creating.service.stop();
      if (reading !== creating) await reading.service.stop();
    },
  };
}

for (const store of STORES) {
  describe(`stored responses (${store.name} store)`, () => {
    let served: Awaited<ReturnType<typeof frontends>>;
    /** Creates responses. */
    let client: OpenAI;
    /** Reads, lists, deletes, cancels and continues them, through the other frontend of a shared store. */
    let other: OpenAI;
    before(async () => {
      served = await frontends(store);
      client = clientOf(served.creating);
      other = clientOf(served.reading);
    });
    after(() => served.stop());

    test('a response is stored by default: retrieve answers the same object, with store true', async () => {
      const created = await client.responses.create({ model: MODEL, input: 'remember me' });
      assert.equal(created.output_text, 'remember me');
      assert.equal((created as unknown as { store: boolean }).store, true);
      const retrieved = await other.responses.retrieve(created.id);
      assert.deepEqual(retrieved, created);
    });

    test("the client's x-request-id does not name a response: sent twice, it stores two", async () => {
      const sameId = client.withOptions({ defaultHeaders: { 'x-request-id': 'my/request id' } });
      const first = await sameId.responses.create({ model: MODEL, input: 'one' });
      const second = await sameId.responses.create({ model: MODEL, input: 'two' });
      assert.notEqual(first.id, second.id);
      assert.match(first.id, /^resp_[0-9a-f]{32}$/);
      assert.equal((await other.responses.retrieve(first.id)).output_text, 'one');
      assert.equal((await other.responses.retrieve(second.id)).output_text, 'two');
    });

    test('store: false is echoed and not stored', async () => {
      const created = await client.responses.create({ model: MODEL, input: 'forget me', store: false });
      assert.equal((created as unknown as { store: boolean }).store, false);
      await assert.rejects(other.responses.retrieve(created.id), (err) => err instanceof OpenAI.NotFoundError && /No response found with id/.test(err.message));
    });

    test('an unknown id is a 404 on every stored route', async () => {
      const id = 'resp_0123456789abcdef0123456789abcdef';
      for (const call of [() => other.responses.retrieve(id), () => other.responses.delete(id), () => other.responses.inputItems.list(id), () => other.responses.cancel(id)]) {
        await assert.rejects(call(), OpenAI.NotFoundError);
      }
    });

    test('a streamed response replays as the same events; a unary one replays to its object', async () => {
      const streamed = await collect(await client.responses.create({ model: MODEL, input: 'stream me', stream: true }));
      const last = streamed[streamed.length - 1]!;
      assert.equal(last.type, 'response.completed');
      const id = last.type === 'response.completed' ? last.response.id : '';
      const replayed = await collect(await other.responses.retrieve(id, { stream: true }));
      assert.deepEqual(replayed, streamed);
      const tail = await collect(await other.responses.retrieve(id, { stream: true, starting_after: streamed.length - 3 }));
      assert.deepEqual(tail, streamed.slice(-2));

      const unary = await client.responses.create({ model: MODEL, input: 'replay me' });
      const events = await collect(await other.responses.retrieve(unary.id, { stream: true }));
      assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
      const end = events[events.length - 1]!;
      assert.ok(end.type === 'response.completed');
      // The SDK adds `output_text` to a Response it returns (not to the ones events carry).
      const { output_text: text, ...object } = unary;
      assert.equal(text, 'replay me');
      assert.deepEqual(end.response, object);
      assert.ok(events.some((e) => e.type === 'response.output_text.delta'));
    });

    test('input items are listed as given with ids, paged by limit, order and after', async () => {
      const input: OpenAI.Responses.ResponseInput = [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'three' }] },
      ];
      const created = await client.responses.create({ model: MODEL, input });
      const desc = await other.responses.inputItems.list(created.id);
      assert.equal(desc.data.length, 3);
      assert.ok(desc.data.every((item) => item.type === 'message' && /^msg_/.test(item.id)));
      assert.deepEqual(desc.data.map((item) => item.type === 'message' && item.content), [input[2]!, input[1]!, input[0]!].map((i) => (i as { content: unknown }).content));
      const page = await other.responses.inputItems.list(created.id, { order: 'asc', limit: 2 });
      assert.equal(page.data.length, 2);
      assert.equal(page.has_more, true);
      const rest = await other.responses.inputItems.list(created.id, { order: 'asc', limit: 2, after: page.data[1]!.id });
      assert.equal(rest.data.length, 1);
      assert.equal(rest.has_more, false);
      assert.equal(rest.data[0]!.id, desc.data[0]!.id);
      // The SDK walks the pages itself.
      const all: string[] = [];
      for await (const item of other.responses.inputItems.list(created.id, { order: 'asc', limit: 1 })) all.push(item.id);
      assert.deepEqual(all, [...desc.data].reverse().map((item) => item.id));

      const single = await client.responses.create({ model: MODEL, input: 'just text' });
      const items = await other.responses.inputItems.list(single.id);
      assert.deepEqual(items.data.map((item) => item.type === 'message' && item.content), [[{ type: 'input_text', text: 'just text' }]]);
    });

    test('delete answers deleted and the response is gone', async () => {
      const created = await client.responses.create({ model: MODEL, input: 'delete me' });
      const res = await fetch(`${served.reading.baseUrl}/v1/responses/${created.id}`, { method: 'DELETE' });
      assert.deepEqual(await res.json(), { id: created.id, object: 'response', deleted: true });
      await assert.rejects(client.responses.retrieve(created.id), OpenAI.NotFoundError);
      await assert.rejects(other.responses.retrieve(created.id), OpenAI.NotFoundError);
      await assert.rejects(client.responses.delete(created.id), OpenAI.NotFoundError);
      const again = await client.responses.create({ model: MODEL, input: 'delete me too' });
      await other.responses.delete(again.id);
      await assert.rejects(client.responses.retrieve(again.id), OpenAI.NotFoundError);
    });

    test('cancel: only background responses can be, and none is: a stored one is a 400', async () => {
      const created = await client.responses.create({ model: MODEL, input: 'finished already' });
      await assert.rejects(other.responses.cancel(created.id), (err) => err instanceof OpenAI.BadRequestError && /background: true/.test(err.message));
      assert.deepEqual(await client.responses.retrieve(created.id), created);
    });

    test('previous_response_id reads the stored chain first, without its instructions', async () => {
      const first = await client.responses.create({ model: MODEL, input: 'first', instructions: 'Answer in French.' });
      const second = await other.responses.create({ model: MODEL, input: 'second', previous_response_id: first.id });
      assert.equal(second.output_text, 'second');
      assert.equal(second.previous_response_id, first.id);
      assert.equal(second.instructions, null);
      const third = await client.responses.create({ model: MODEL, input: 'third', previous_response_id: second.id });
      // The prompt the chain makes is the one its items make written out (the first's instructions left out).
      const firstInput = (await other.responses.inputItems.list(first.id)).data;
      const secondInput = (await client.responses.inputItems.list(second.id)).data;
      const written = [...firstInput, ...first.output, ...secondInput, ...second.output, { role: 'user' as const, content: 'fourth' }] as OpenAI.Responses.ResponseInput;
      const chained = await other.responses.inputTokens.count({ model: MODEL, input: 'fourth', previous_response_id: third.id });
      const byHand = await client.responses.inputTokens.count({ model: MODEL, input: [...written.slice(0, -1), ...(await client.responses.inputItems.list(third.id)).data, ...third.output, written[written.length - 1]!] as OpenAI.Responses.ResponseInput });
      assert.equal(chained.input_tokens, byHand.input_tokens);
      const withoutHistory = await client.responses.inputTokens.count({ model: MODEL, input: 'fourth' });
      assert.ok(chained.input_tokens > withoutHistory.input_tokens);

      await assert.rejects(
        other.responses.create({ model: MODEL, input: 'x', previous_response_id: 'resp_missing' }),
        (err) => err instanceof OpenAI.NotFoundError && /Previous response with id 'resp_missing' not found/.test(err.message),
      );
    });
  });

  describe(`stored responses with API keys (${store.name} store)`, () => {
    let served: Awaited<ReturnType<typeof frontends>>;
    let alice: OpenAI;
    /** Alice through the reading frontend. */
    let aliceThere: OpenAI;
    let bob: OpenAI;
    before(async () => {
      served = await frontends(store, ['--api-key', 'key-alice', '--api-key', 'key-bob']);
      alice = clientOf(served.creating, 'key-alice');
      aliceThere = clientOf(served.reading, 'key-alice');
      bob = clientOf(served.reading, 'key-bob');
    });
    after(() => served.stop());

    test("a key reads, lists, continues and deletes only its own responses; another key's are unknown", async () => {
      const mine = await alice.responses.create({ model: MODEL, input: 'private' });
      await assert.rejects(bob.responses.retrieve(mine.id), OpenAI.NotFoundError);
      await assert.rejects(bob.responses.inputItems.list(mine.id), OpenAI.NotFoundError);
      await assert.rejects(bob.responses.create({ model: MODEL, input: 'x', previous_response_id: mine.id }), OpenAI.NotFoundError);
      await assert.rejects(bob.responses.delete(mine.id), OpenAI.NotFoundError);
      await assert.rejects(bob.responses.cancel(mine.id), OpenAI.NotFoundError);
      assert.deepEqual(await aliceThere.responses.retrieve(mine.id), mine);
      const next = await aliceThere.responses.create({ model: MODEL, input: 'more', previous_response_id: mine.id });
      assert.equal(next.previous_response_id, mine.id);
      await assert.rejects(bob.responses.retrieve(next.id), OpenAI.NotFoundError);
      await aliceThere.responses.delete(mine.id);
      await assert.rejects(alice.responses.retrieve(mine.id), OpenAI.NotFoundError);
    });

    test('without a key the stored routes are refused like every API route', async () => {
      const res = await fetch(`${served.reading.baseUrl}/v1/responses/resp_any`);
      assert.equal(res.status, 401);
    });
  });
}
