// Bodies past the threshold go to the parse thread chunk by chunk: the same object and the same
// errors as the inline parse, the size limits checked there, and through the real routes the same
// answers and 400s.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { parseJsonBody } from '../../../../src/frontends/http/body/json-body.js';
import { openBodyParse } from '../../../../src/frontends/http/body/json-body-thread.js';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../../../../src/pipeline/index.js';
import { isDynamoError } from '../../../../src/protocols/index.js';
import { postJson, serveInProcess } from '../../../support/in-process.js';

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

/** The body written to the thread in pieces of `piece` bytes, as a socket delivers it. */
function parseOffLoop(body: Buffer, limits: RequestLimits = DEFAULT_REQUEST_LIMITS, piece = 7): Promise<unknown> {
  const job = openBodyParse();
  for (let at = 0; at < body.length; at += piece) job.write(body.subarray(at, at + piece));
  return job.end({ limits });
}

function errorOf(err: unknown) {
  return isDynamoError(err) ? { kind: err.kind, status: err.httpStatus, message: err.message } : { message: (err as Error).message };
}

describe('parsing on the parse thread', () => {
  for (const [name, body] of Object.entries(BODIES)) {
    test(`${name}: the same outcome as the inline parse`, async () => {
      const inline = outcome(() => parseJsonBody(body));
      const offLoop = await parseOffLoop(body).then(
        (value: unknown) => ({ value }),
        (err: unknown) => ({ error: errorOf(err) }),
      );
      assert.deepEqual(offLoop, inline);
    });
  }

  test("chunks are copied: the caller's buffers stay usable, and a body past a staging piece arrives whole", async () => {
    const pooled = Buffer.from('{"a":1}');
    assert.deepEqual(await parseOffLoop(pooled), { a: 1 });
    assert.equal(pooled.toString(), '{"a":1}');
    // A multi-byte character split across chunks and across the 1 MiB staging pieces.
    const big = Buffer.from(JSON.stringify({ text: 'é€'.repeat(700_000) }));
    assert.deepEqual(await parseOffLoop(big, DEFAULT_REQUEST_LIMITS, 65_537), { text: 'é€'.repeat(700_000) });
  });

  test('concurrent parses, their chunks interleaved, each get their own answer', async () => {
    const jobs = Array.from({ length: 50 }, () => openBodyParse());
    const bodies = jobs.map((_, i) => Buffer.from(`{"i":${i},"pad":"${'x'.repeat(i)}"}`));
    for (let at = 0; at < 100; at += 3) jobs.forEach((job, i) => job.write(bodies[i]!.subarray(at, at + 3)));
    const results = await Promise.all(jobs.map((job) => job.end({ limits: DEFAULT_REQUEST_LIMITS })));
    assert.deepEqual(results, bodies.map((_, i) => ({ i, pad: 'x'.repeat(i) })));
  });

  test('an aborted parse is forgotten and the next one is answered', async () => {
    const job = openBodyParse();
    job.write(Buffer.from('{"half":'));
    job.abort();
    assert.deepEqual(await parseOffLoop(Buffer.from('{"next":true}')), { next: true });
  });

  describe('the size limits are checked on the thread', () => {
    const limits: RequestLimits = { maxMessages: 3, maxTools: 2, maxPromptChars: 100 };
    const refusals: Record<string, [unknown, RegExp]> = {
      'chat messages': [{ messages: [{}, {}, {}, {}] }, /Request has 4 messages, more than the limit of 3 \(--max-request-messages\)/],
      tools: [{ tools: [1, 2, 3] }, /Maximum of 2 tools are supported, got 3 \(--max-request-tools\)/],
      'message text': [{ messages: [{ content: 'x'.repeat(60) }, { content: [{ type: 'text', text: 'y'.repeat(41) }] }] }, /Prompt has 101 characters, more than the limit of 100 \(--max-prompt-chars\)/],
      'tool-call arguments and reasoning': [{ messages: [{ reasoning_content: 'r'.repeat(50), tool_calls: [{ function: { arguments: 'a'.repeat(51) } }] }] }, /Prompt has 101 characters/],
      'completions prompts': [{ prompt: ['a'.repeat(50), 'b'.repeat(51)] }, /Prompt has 101 characters/],
      'Responses input and instructions': [{ input: [{ content: 'c'.repeat(50) }], instructions: 'i'.repeat(51) }, /Prompt has 101 characters/],
      'Anthropic system': [{ system: [{ type: 'text', text: 's'.repeat(101) }] }, /Prompt has 101 characters/],
    };
    for (const [name, [body, message]] of Object.entries(refusals)) {
      test(`${name} over the limit: a 400 naming the limit`, async () => {
        await assert.rejects(parseOffLoop(Buffer.from(JSON.stringify(body)), limits), (err: unknown) => {
          assert.ok(isDynamoError(err) && err.httpStatus === 400, String(err));
          assert.match((err as Error).message, message);
          return true;
        });
      });
    }

    test('malformed shapes are left to the routes, never a crash', async () => {
      const odd = { messages: [null, 'text', { content: 7, tool_calls: [null, { function: 3 }] }], prompt: [1, 2], system: 4, input: {} };
      assert.deepEqual(await parseOffLoop(Buffer.from(JSON.stringify(odd)), limits), odd);
    });
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

  test('a big body over the message limit is a 400 naming the limit', async () => {
    const messages = Array.from({ length: 5000 }, (_, i) => ({ role: 'user', content: `m${i}` }));
    await assert.rejects(
      client.chat.completions.create({ model: MODEL, messages: messages as OpenAI.ChatCompletionMessageParam[] }),
      (err: InstanceType<typeof OpenAI.APIError>) => err.status === 400 && /5000 messages, more than the limit of 4096/.test(err.message),
    );
  });

  test('a body sent in slow chunks without Content-Length is read whole', async () => {
    const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello '.repeat(1000) }], max_tokens: 2 });
    const pieces = [body.slice(0, 3000), body.slice(3000)];
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = pieces.shift();
        if (next === undefined) controller.close();
        else {
          await new Promise((r) => setTimeout(r, 20));
          controller.enqueue(new TextEncoder().encode(next));
        }
      },
    });
    const res = await fetch(`${ctx.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens, 2);
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
