// Stored responses through the official openai client against `serve --mocker-output
// echo-last-user`: retrieve, replay, input items, delete, cancel, continuation with
// previous_response_id, and with API keys each key's responses kept to itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { serveInProcess } from '../../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const ECHO = ['--mocker-output', 'echo-last-user', '--speedup-ratio', '1000'];

type Served = Awaited<ReturnType<typeof serveInProcess>>;

const clientOf = (server: Served, apiKey = 'unused'): OpenAI => new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey, maxRetries: 0 });

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('stored responses', () => {
  let server: Served;
  let client: OpenAI;
  before(async () => {
    server = await serveInProcess(ECHO);
    client = clientOf(server);
  });
  after(() => server.service.stop());

  test('a response is stored by default: retrieve answers the same object, with store true', async () => {
    const created = await client.responses.create({ model: MODEL, input: 'remember me' });
    assert.equal(created.output_text, 'remember me');
    assert.equal((created as unknown as { store: boolean }).store, true);
    const retrieved = await client.responses.retrieve(created.id);
    assert.deepEqual(retrieved, created);
  });

  test('store: false is echoed and not stored', async () => {
    const created = await client.responses.create({ model: MODEL, input: 'forget me', store: false });
    assert.equal((created as unknown as { store: boolean }).store, false);
    await assert.rejects(client.responses.retrieve(created.id), (err) => err instanceof OpenAI.NotFoundError && /No response found with id/.test(err.message));
  });

  test('an unknown id is a 404 on every stored route', async () => {
    const id = 'resp_0123456789abcdef0123456789abcdef';
    for (const call of [() => client.responses.retrieve(id), () => client.responses.delete(id), () => client.responses.inputItems.list(id), () => client.responses.cancel(id)]) {
      await assert.rejects(call(), OpenAI.NotFoundError);
    }
  });

  test('a streamed response replays as the same events; a unary one replays to its object', async () => {
    const streamed = await collect(await client.responses.create({ model: MODEL, input: 'stream me', stream: true }));
    const last = streamed[streamed.length - 1]!;
    assert.equal(last.type, 'response.completed');
    const id = last.type === 'response.completed' ? last.response.id : '';
    const replayed = await collect(await client.responses.retrieve(id, { stream: true }));
    assert.deepEqual(replayed, streamed);
    const tail = await collect(await client.responses.retrieve(id, { stream: true, starting_after: streamed.length - 3 }));
    assert.deepEqual(tail, streamed.slice(-2));

    const unary = await client.responses.create({ model: MODEL, input: 'replay me' });
    const events = await collect(await client.responses.retrieve(unary.id, { stream: true }));
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
    const desc = await client.responses.inputItems.list(created.id);
    assert.equal(desc.data.length, 3);
    assert.ok(desc.data.every((item) => item.type === 'message' && /^msg_/.test(item.id)));
    assert.deepEqual(desc.data.map((item) => item.type === 'message' && item.content), [input[2]!, input[1]!, input[0]!].map((i) => (i as { content: unknown }).content));
    const page = await client.responses.inputItems.list(created.id, { order: 'asc', limit: 2 });
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, true);
    const rest = await client.responses.inputItems.list(created.id, { order: 'asc', limit: 2, after: page.data[1]!.id });
    assert.equal(rest.data.length, 1);
    assert.equal(rest.has_more, false);
    assert.equal(rest.data[0]!.id, desc.data[0]!.id);
    // The SDK walks the pages itself.
    const all: string[] = [];
    for await (const item of client.responses.inputItems.list(created.id, { order: 'asc', limit: 1 })) all.push(item.id);
    assert.deepEqual(all, [...desc.data].reverse().map((item) => item.id));

    const single = await client.responses.create({ model: MODEL, input: 'just text' });
    const items = await client.responses.inputItems.list(single.id);
    assert.deepEqual(items.data.map((item) => item.type === 'message' && item.content), [[{ type: 'input_text', text: 'just text' }]]);
  });

  test('delete answers deleted and the response is gone', async () => {
    const created = await client.responses.create({ model: MODEL, input: 'delete me' });
    const res = await fetch(`${server.baseUrl}/v1/responses/${created.id}`, { method: 'DELETE' });
    assert.deepEqual(await res.json(), { id: created.id, object: 'response', deleted: true });
    await assert.rejects(client.responses.retrieve(created.id), OpenAI.NotFoundError);
    await assert.rejects(client.responses.delete(created.id), OpenAI.NotFoundError);
    const again = await client.responses.create({ model: MODEL, input: 'delete me too' });
    await client.responses.delete(again.id);
    await assert.rejects(client.responses.retrieve(again.id), OpenAI.NotFoundError);
  });

  test('cancel: only background responses can be, and none is: a stored one is a 400', async () => {
    const created = await client.responses.create({ model: MODEL, input: 'finished already' });
    await assert.rejects(client.responses.cancel(created.id), (err) => err instanceof OpenAI.BadRequestError && /background: true/.test(err.message));
    assert.deepEqual(await client.responses.retrieve(created.id), created);
  });

  test('previous_response_id reads the stored chain first, without its instructions', async () => {
    const first = await client.responses.create({ model: MODEL, input: 'first', instructions: 'Answer in French.' });
    const second = await client.responses.create({ model: MODEL, input: 'second', previous_response_id: first.id });
    assert.equal(second.output_text, 'second');
    assert.equal(second.previous_response_id, first.id);
    assert.equal(second.instructions, null);
    const third = await client.responses.create({ model: MODEL, input: 'third', previous_response_id: second.id });
    // The prompt the chain makes is the one its items make written out (the first's instructions left out).
    const firstInput = (await client.responses.inputItems.list(first.id)).data;
    const secondInput = (await client.responses.inputItems.list(second.id)).data;
    const written = [...firstInput, ...first.output, ...secondInput, ...second.output, { role: 'user' as const, content: 'fourth' }] as OpenAI.Responses.ResponseInput;
    const chained = await client.responses.inputTokens.count({ model: MODEL, input: 'fourth', previous_response_id: third.id });
    const byHand = await client.responses.inputTokens.count({ model: MODEL, input: [...written.slice(0, -1), ...(await client.responses.inputItems.list(third.id)).data, ...third.output, written[written.length - 1]!] as OpenAI.Responses.ResponseInput });
    assert.equal(chained.input_tokens, byHand.input_tokens);
    const withoutHistory = await client.responses.inputTokens.count({ model: MODEL, input: 'fourth' });
    assert.ok(chained.input_tokens > withoutHistory.input_tokens);

    await assert.rejects(
      client.responses.create({ model: MODEL, input: 'x', previous_response_id: 'resp_missing' }),
      (err) => err instanceof OpenAI.NotFoundError && /Previous response with id 'resp_missing' not found/.test(err.message),
    );
  });
});

describe('stored responses with API keys', () => {
  let server: Served;
  let alice: OpenAI;
  let bob: OpenAI;
  before(async () => {
    server = await serveInProcess([...ECHO, '--api-key', 'key-alice', '--api-key', 'key-bob']);
    alice = clientOf(server, 'key-alice');
    bob = clientOf(server, 'key-bob');
  });
  after(() => server.service.stop());

  test("a key reads, lists, continues and deletes only its own responses; another key's are unknown", async () => {
    const mine = await alice.responses.create({ model: MODEL, input: 'private' });
    await assert.rejects(bob.responses.retrieve(mine.id), OpenAI.NotFoundError);
    await assert.rejects(bob.responses.inputItems.list(mine.id), OpenAI.NotFoundError);
    await assert.rejects(bob.responses.create({ model: MODEL, input: 'x', previous_response_id: mine.id }), OpenAI.NotFoundError);
    await assert.rejects(bob.responses.delete(mine.id), OpenAI.NotFoundError);
    await assert.rejects(bob.responses.cancel(mine.id), OpenAI.NotFoundError);
    assert.deepEqual(await alice.responses.retrieve(mine.id), mine);
    const next = await alice.responses.create({ model: MODEL, input: 'more', previous_response_id: mine.id });
    assert.equal(next.previous_response_id, mine.id);
    await alice.responses.delete(mine.id);
    await assert.rejects(alice.responses.retrieve(mine.id), OpenAI.NotFoundError);
  });

  test('without a key the stored routes are refused like every API route', async () => {
    const res = await fetch(`${server.baseUrl}/v1/responses/resp_any`);
    assert.equal(res.status, 401);
  });
});
