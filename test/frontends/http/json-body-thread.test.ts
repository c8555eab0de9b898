// Bodies past the threshold are parsed on the parse thread: the same object and the same errors as
// the inline parse, and through the real routes the same answers and 400s.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { parseJsonBody } from '../../../src/frontends/http/json-body.js';
import { parseJsonBodyOffLoop } from '../../../src/frontends/http/json-body-thread.js';
import { isDynamoError } from '../../../src/protocols/index.js';
import { postJson, serveInProcess } from '../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';

/** Each body as bytes: valid, tolerated (raw controls, invalid UTF-8, exact ids) and refused. */
const BODIES: Record<string, Buffer> = {
  plain: Buffer.from(JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(5000) }], n: 1.5, ok: [true, null] })),
  'raw control characters': Buffer.from('{"content":"a\tb\nc\u0001d"}'),
  'invalid UTF-8': Buffer.concat([Buffer.from('{"content":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]),
  'exact worker ids': Buffer.from('{"nvext":{"backend_instance_id":7587890123456789012}}'),
  'prototype keys': Buffer.from('{"__proto__":{"polluted":1},"constructor":{"prototype":{}}}'),
  malformed: Buffer.from('{"model":'),
  'trailing garbage': Buffer.from('{"a":1} x'),
  'nested past the limit': Buffer.from(`{"logit_bias":{"5":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`),
  empty: Buffer.alloc(0),
};

function outcome(run: () => unknown): { value?: unknown; error?: { kind?: string; status?: number; message: string } } {
  try {
    return { value: run() };
  } catch (err) {
    return { error: errorOf(err) };
  }
}

function errorOf(err: unknown) {
  return isDynamoError(err) ? { kind: err.kind, status: err.httpStatus, message: err.message } : { message: (err as Error).message };
}

describe('parsing on the parse thread', () => {
  for (const [name, body] of Object.entries(BODIES)) {
    test(`${name}: the same outcome as the inline parse`, async () => {
      const inline = outcome(() => parseJsonBody(body));
      const offLoop = await parseJsonBodyOffLoop(Buffer.from(body)).then(
        (value) => ({ value }),
        (err: unknown) => ({ error: errorOf(err) }),
      );
      assert.deepEqual(offLoop, inline);
    });
  }

  test('a body that owns its memory is handed over; one that shares a pool is copied and stays usable', async () => {
    const pooled = Buffer.from('{"a":1}');
    assert.notEqual(pooled.byteLength, pooled.buffer.byteLength);
    assert.deepEqual(await parseJsonBodyOffLoop(pooled), { a: 1 });
    assert.equal(pooled.toString(), '{"a":1}');
    const owned = Buffer.alloc(7, '{"b":2}');
    assert.deepEqual(await parseJsonBodyOffLoop(owned), { b: 2 });
  });

  test('concurrent parses each get their own answer', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => parseJsonBodyOffLoop(Buffer.from(`{"i":${i}}`))));
    assert.deepEqual(results, Array.from({ length: 50 }, (_, i) => ({ i })));
  });
});

describe('the routes with every body parsed on the thread', () => {
  let ctx: Awaited<ReturnType<typeof serveInProcess>>;
  let client: OpenAI;

  before(async () => {
    ctx = await serveInProcess(['--speedup-ratio', '1000', '--enable-anthropic-api'], { DYN_HTTP_BODY_PARSE_THREAD_KB: '1' });
    client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => ctx.service.stop());

  test('a chat completion with a large body is answered', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hello '.repeat(2000) }],
      max_tokens: 3,
    });
    assert.equal(completion.choices[0]!.message.role, 'assistant');
    assert.equal(completion.usage!.completion_tokens, 3);
  });

  test('a streamed completion with a large body is answered', async () => {
    const stream = await client.completions.create({ model: MODEL, prompt: 'hello '.repeat(2000), max_tokens: 3, stream: true });
    let chunks = 0;
    for await (const chunk of stream) chunks += chunk.choices.length;
    assert.ok(chunks >= 1);
  });

  test('malformed and deep bodies get the inline 400s', async () => {
    const padding = `"pad":"${'p'.repeat(2000)}"`;
    const malformed = await postJson(ctx.baseUrl, '/v1/chat/completions', `{${padding},"model":`);
    assert.equal(malformed.status, 400);
    assert.match(((await malformed.json()) as { error: { message: string } }).error.message, /^Failed to deserialize the JSON body into the target type: /);
    const deep = await postJson(ctx.baseUrl, '/v1/chat/completions', `{${padding},"logit_bias":{"5":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
    assert.equal(deep.status, 400);
    assert.match(((await deep.json()) as { error: { message: string } }).error.message, /logit_bias\.5\[0\]\[0\]….*nested deeper than 128 levels/);
  });

  test('the Anthropic route answers a large body, and a deep one in its own error shape', async () => {
    const anthropic = new Anthropic({ baseURL: ctx.baseUrl, apiKey: 'unused', maxRetries: 0 });
    const message = await anthropic.messages.create({ model: MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'hello '.repeat(2000) }] });
    assert.equal(message.role, 'assistant');
    const res = await postJson(ctx.baseUrl, '/v1/messages', `{"model":"${MODEL}","max_tokens":3,"metadata":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    assert.equal(res.status, 400);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.match(body.error.message, /metadata.*nested deeper than 128 levels/);
  });
});
