// parseStreamItemBody: the same value JSON.parse gives, for the token frames it reads itself and
// for every body it hands on (near misses of that shape included), and the same errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStreamItemBody, streamItemBodyJson, streamItemJson, STREAM_END_JSON } from '../../../src/runtime/codecs/index.js';
import { engineHandler } from '../../../src/runtime/index.js';

function same(text: string): void {
  const body = Buffer.from(text, 'utf8');
  let expected: unknown;
  try {
    expected = JSON.parse(text);
  } catch (err) {
    assert.throws(() => parseStreamItemBody(body), (e: unknown) => e instanceof SyntaxError, `throws like JSON.parse: ${text}`);
    return;
  }
  assert.deepEqual(parseStreamItemBody(body), expected, text);
}

test('token frames: the values JSON.parse gives, key order included', () => {
  let seed = 7;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let i = 0; i < 2000; i++) {
    const ids = Array.from({ length: 1 + rand(4) }, () => rand(4) === 0 ? rand(10) : rand(300_000));
    const text = streamItemJson(JSON.stringify({ data: { token_ids: ids, index: rand(8) } }));
    same(text);
    assert.deepEqual(Object.keys(parseStreamItemBody(Buffer.from(text))), ['data', 'complete_final']);
  }
  same(streamItemJson(JSON.stringify({ data: { token_ids: [999_999_999_999_999], index: 0 } })));
});

test('everything else goes to JSON.parse: other fields, other shapes, near misses, bad JSON', () => {
  const bodies = [
    STREAM_END_JSON,
    streamItemJson(JSON.stringify({ data: { token_ids: [1], index: 0, finish_reason: 'stop' } })),
    streamItemJson(JSON.stringify({ data: { token_ids: [], index: 0 } })),
    streamItemJson(JSON.stringify({ data: { index: 0, token_ids: [5] } })),
    streamItemJson(JSON.stringify({ data: { token_ids: [5], index: 0, log_probs: [-0.5] } })),
    streamItemJson(JSON.stringify({ data: { token_ids: [1_000_000_000_000_000], index: 0 } })),
    streamItemJson(JSON.stringify({ data: { token_ids: [12345678901234567], index: 0 } })),
    '{"data":{"data":{"token_ids":[1.5],"index":0}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1e3],"index":0}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[-1],"index":0}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[01],"index":0}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1],"index":00}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1],"index":0.5}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1,],"index":0}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1 ,2],"index":0}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1],"index":0}},"complete_final":true}',
    '{"data":{"data":{"token_ids":[1],"index":}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[],"index":0}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1],"index":0}}, "complete_final":false}',
    '{"data":{"data":{"token_ids":[',
    '{"data":{"data":{"token_ids":[1],"index":0}},"complete_final":false}x',
    '{"data":"héllo ✓","complete_final":false}',
    '{"data":{"token_ids":[1],"index":0},"complete_final":false}',
  ];
  for (const text of bodies) same(text);
});

test('a decode step as a worker sends it is read without JSON.parse', async () => {
  const engine = {
    async *generate() {
      yield { token_ids: [151_643], index: 0 };
    },
  };
  const handler = engineHandler(engine as never);
  const items: unknown[] = [];
  for await (const item of handler({}, { requestId: 'r', signal: new AbortController().signal, headers: {} } as never)) items.push(item);
  // The worker's ingress writes each item as JSON inside the stream envelope.
  const body = Buffer.from(streamItemJson(JSON.stringify(items[0])));
  const parse = JSON.parse;
  let calls = 0;
  JSON.parse = ((text: string) => {
    calls++;
    return parse(text) as unknown;
  }) as typeof JSON.parse;
  try {
    assert.deepEqual(parseStreamItemBody(body), { data: { data: { token_ids: [151_643], index: 0 } }, complete_final: false });
  } finally {
    JSON.parse = parse;
  }
  assert.equal(calls, 0);
});

test('streamItemBodyJson writes what streamItemJson(JSON.stringify(item)) writes, token steps and everything else', () => {
  const same = (item: unknown): void => assert.equal(streamItemBodyJson(item), streamItemJson(JSON.stringify(item)), JSON.stringify(item));
  let seed = 11;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let i = 0; i < 2000; i++) same({ data: { token_ids: Array.from({ length: rand(4) }, () => rand(300_000) - (rand(10) === 0 ? 150_000 : 0)), index: rand(8) } });
  const inherited = Object.assign(Object.create({ extra: 1 }) as object, { token_ids: [1], index: 0 });
  for (const item of [
    { data: { token_ids: [-0, 0], index: -0 } },
    { data: { token_ids: [2 ** 53], index: 0 } },
    { data: { token_ids: [1.5], index: 0 } },
    { data: { token_ids: [1], index: 0, finish_reason: 'stop' } },
    { data: { index: 0, token_ids: [1] } },
    { data: { token_ids: [1] } },
    { data: { token_ids: [1, , 3], index: 0 } },
    { data: { token_ids: ['1'], index: 0 } },
    { data: { token_ids: [1], index: 0, toJSON: () => 'x' } },
    { data: inherited },
    { data: { token_ids: [1], index: 0 }, event: 'x' },
    { data: null },
    { event: 'error', comment: ['boom'] },
    'text',
    null,
  ]) same(item);
});

test('token ids alone (the sparse form Python engines send): read and written as JSON does, near misses too', () => {
  const sameBody = (text: string): void => {
    let expected: unknown;
    try {
      expected = JSON.parse(text);
    } catch {
      assert.throws(() => parseStreamItemBody(Buffer.from(text)), SyntaxError, text);
      return;
    }
    assert.deepEqual(parseStreamItemBody(Buffer.from(text)), expected, text);
  };
  for (let n = 1; n <= 4; n++) {
    const item = { data: { token_ids: Array.from({ length: n }, (_, i) => 7 + i * 151_000) } };
    const text = streamItemJson(JSON.stringify(item));
    assert.equal(streamItemBodyJson(item), text);
    sameBody(text);
    assert.deepEqual(Object.keys((parseStreamItemBody(Buffer.from(text)).data as { data: object }).data), ['token_ids']);
  }
  for (const text of [
    '{"data":{"data":{"token_ids":[]}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1]}},"complete_final":true}',
    '{"data":{"data":{"token_ids":[1] }},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1]},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1]}}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1,]}},"complete_final":false}',
    '{"data":{"data":{"token_ids":[1]}},"complete_final":false}x',
  ]) sameBody(text);
});
