// One call to one worker, pulled and pushed: Annotated items unwrapped (annotation-only items
// skipped), an error event fails the call once with the instance named and logged, and an item that
// cannot be decoded closes the call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drainStream, WorkerLostError } from '../../src/protocols/index.js';
import { AsyncQueue, remoteCall, type RequestPlaneClient } from '../../src/runtime/index.js';
import type { EndpointInstance } from '../../src/runtime/discovery/index.js';

const INSTANCE = { namespace: 'ns', component: 'c', endpoint: 'generate', instanceId: 0xabcn, transport: { tcp: '127.0.0.1:1' }, requestPlaneCodec: 'json' } as unknown as EndpointInstance;

/** A client whose one call streams `items` from a queue (or a generator with `pull`), recording how it closed. */
function clientOf(items: unknown[], pull = false): { client: RequestPlaneClient; closed: string[] } {
  const closed: string[] = [];
  const stream = (): AsyncIterable<unknown> => {
    if (pull) {
      return (async function* () {
        try {
          yield* items;
        } finally {
          closed.push('closed');
        }
      })();
    }
    const queue = new AsyncQueue<{} | null>();
    queue.whenClosed((how) => closed.push(how));
    for (const item of items) queue.push(item as {});
    queue.end();
    return queue;
  };
  return { client: { stream, probe: async () => true, close: async () => undefined }, closed };
}

const ctx = () => ({ requestId: 'r1', signal: new AbortController().signal });

async function pulled<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const got: T[] = [];
  for await (const x of stream) got.push(x);
  return got;
}

async function pushed<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const got: T[] = [];
  await drainStream(stream, (x) => void got.push(x));
  return got;
}

const ITEMS = [{ data: { n: 1 } }, { event: 'note', comment: ['annotation only'] }, { data: { n: 2 } }];

for (const [mode, consume] of [['pulled', pulled], ['pushed', pushed]] as const) {
  test(`${mode}: data items decoded in order, annotation-only items skipped`, async () => {
    for (const pull of [false, true]) {
      const { client } = clientOf(ITEMS, pull);
      assert.deepEqual(await consume(remoteCall(client, INSTANCE, {}, ctx(), (d) => d.n as number)), [1, 2]);
    }
  });

  test(`${mode}: a worker-lost error event fails the call naming the instance, logged once`, async () => {
    const logged: string[] = [];
    const { client } = clientOf([{ data: { n: 1 } }, { event: 'error', error: 'EngineShutdown: gone' }, { data: { n: 9 } }]);
    const got: number[] = [];
    const stream = remoteCall(client, INSTANCE, {}, ctx(), (d) => d.n as number, { warn: (_o, msg) => logged.push(msg) });
    const consumeInto = mode === 'pulled' ? (async () => { for await (const n of stream) got.push(n); })() : drainStream(stream, (n) => void got.push(n));
    await assert.rejects(consumeInto, (err: unknown) => err instanceof WorkerLostError && err.instanceId === 0xabcn);
    assert.deepEqual(got, [1]);
    assert.deepEqual(logged, ['worker stream failed mid-response']);
  });

  test(`${mode}: an item that cannot be decoded fails the call and closes it`, async () => {
    const { client, closed } = clientOf([{ data: { n: 1 } }, { data: { n: 'bad' } }, { data: { n: 3 } }]);
    const decode = (d: Record<string, unknown>): number => {
      if (typeof d.n !== 'number') throw new Error('not a number');
      return d.n;
    };
    await assert.rejects(consume(remoteCall(client, INSTANCE, {}, ctx(), decode)), /not a number/);
    assert.deepEqual(closed, ['returned']);
  });
}
