// /v1/embeddings through `serve --model-type embedding`, with the official openai client: float and
// base64 encodings, dimensions, usage, cosine similarity of the mocker's vectors, and the 400s and
// 404 a client can run into.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { postJson, serveInjected } from '../../../support/in-process.js';
import { fetchFor } from '../../../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';

type Served = Awaited<ReturnType<typeof serveInjected>>;

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

async function errorOf(res: Response): Promise<{ status: number; message: string }> {
  const body = (await res.json()) as { message: string };
  return { status: res.status, message: body.message };
}

describe('/v1/embeddings on an embedding model', () => {
  let ctx: Served;
  let client: OpenAI;

  before(async () => {
    ctx = await serveInjected(['--model-type', 'embedding']);
    client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused', maxRetries: 0 });
  });
  after(() => ctx.service.stop());

  test('lists the model, whose card says Embedding', async () => {
    const models = await client.models.list();
    assert.deepEqual(models.data.map((m) => m.id), [MODEL]);
    assert.deepEqual(ctx.service.models.get(MODEL).card.modelType, ['Embedding']);
  });

  test('float vectors are unit-norm and equal for equal inputs; similarity follows shared tokens', async () => {
    const inputs = ['the cat sat on the mat', 'the cat sat on the mat', 'the cat sat on a mat', 'quantum chromodynamics lecture notes'];
    const res = await client.embeddings.create({ model: MODEL, input: inputs, encoding_format: 'float' });
    assert.equal(res.object, 'list');
    assert.equal(res.model, MODEL);
    assert.deepEqual(res.data.map((d) => d.index), [0, 1, 2, 3]);
    const [a, same, near, far] = res.data.map((d) => d.embedding);
    for (const v of [a!, near!, far!]) assert.ok(Math.abs(norm(v) - 1) < 1e-9, `norm ${norm(v)}`);
    assert.deepEqual(a, same);
    assert.ok(cosine(a!, near!) > 0.7, `near ${cosine(a!, near!)}`);
    assert.ok(cosine(a!, far!) < cosine(a!, near!) - 0.3, `far ${cosine(a!, far!)}`);
    assert.ok(res.usage.prompt_tokens > 0);
    assert.equal(res.usage.total_tokens, res.usage.prompt_tokens);
  });

  test('base64 (the client default) decodes to the float vectors', async () => {
    const floats = await client.embeddings.create({ model: MODEL, input: 'hello world', encoding_format: 'float' });
    const viaDefault = await client.embeddings.create({ model: MODEL, input: 'hello world' });
    const raw = (await (await postJson(ctx.baseUrl, '/v1/embeddings', { model: MODEL, input: 'hello world', encoding_format: 'base64' })).json()) as {
      data: { embedding: string }[];
    };
    assert.equal(typeof raw.data[0]!.embedding, 'string');
    const bytes = Buffer.from(raw.data[0]!.embedding, 'base64');
    assert.equal(bytes.length, floats.data[0]!.embedding.length * 4);
    floats.data[0]!.embedding.forEach((x, i) => {
      assert.ok(Math.abs(bytes.readFloatLE(i * 4) - x) < 1e-6);
      assert.ok(Math.abs(viaDefault.data[0]!.embedding[i]! - x) < 1e-6);
    });
  });

  test('dimensions sets the vector size; token ids and lists of them are accepted', async () => {
    const sized = await client.embeddings.create({ model: MODEL, input: 'hello', dimensions: 32, encoding_format: 'float' });
    assert.equal(sized.data[0]!.embedding.length, 32);
    const ids = await client.embeddings.create({ model: MODEL, input: [1, 2, 3], encoding_format: 'float' });
    const lists = await client.embeddings.create({ model: MODEL, input: [[1, 2, 3], [4, 5]], encoding_format: 'float' });
    assert.equal(ids.usage.prompt_tokens, 3);
    assert.equal(lists.usage.prompt_tokens, 5);
    assert.deepEqual(lists.data[0]!.embedding, ids.data[0]!.embedding);
  });

  test('an input over the context length is a 400 naming its index', async () => {
    const contextLength = ctx.service.models.get(MODEL).card.contextLength;
    const res = await postJson(ctx.baseUrl, '/v1/embeddings', { model: MODEL, input: [[1, 2], new Array(contextLength + 1).fill(7)] });
    const err = await errorOf(res);
    assert.equal(err.status, 400);
    assert.match(err.message, /^input\[1\] has \d+ tokens, more than this model's maximum context length/);
  });

  test('bad inputs are 400s naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ model: MODEL }, /input must be a string/],
      [{ model: MODEL, input: [] }, /input must not be an empty array/],
      [{ model: MODEL, input: ['ok', ''] }, /input\[1\] must not be an empty string/],
      [{ model: MODEL, input: [[1], [2, -3]] }, /input\[1\]\[1\] must be a non-negative integer token id/],
      [{ model: MODEL, input: ['a', [1]] }, /input must not mix texts and token id lists/],
      [{ model: MODEL, input: 'x', encoding_format: 'int8' }, /encoding_format must be one of 'float', 'base64'/],
      [{ model: MODEL, input: 'x', dimensions: 0 }, /dimensions must be between 1 and/],
      [{ input: 'x' }, /Model cannot be empty/],
    ];
    for (const [body, message] of cases) {
      const err = await errorOf(await postJson(ctx.baseUrl, '/v1/embeddings', body));
      assert.equal(err.status, 400, JSON.stringify(body));
      assert.match(err.message, message);
    }
  });

  test('an unknown model is 404; chat on the embedding model is a 400 that names its type', async () => {
    await assert.rejects(client.embeddings.create({ model: 'nope', input: 'x' }), (e: InstanceType<typeof OpenAI.APIError>) => e.status === 404);
    await assert.rejects(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 400 && /is of type Embedding and cannot serve chat completions \(model type Chat required\)/.test(e.message),
    );
    const completions = await errorOf(await postJson(ctx.baseUrl, '/v1/completions', { model: MODEL, prompt: 'hi' }));
    assert.equal(completions.status, 400);
    assert.match(completions.message, /type Embedding and cannot serve completions/);
  });

  test('requests are counted under the embeddings endpoint label', async () => {
    await client.embeddings.create({ model: MODEL, input: 'count me' });
    const metrics = await (await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/metrics`)).text();
    assert.match(metrics, /endpoint="embeddings"/);
  });
});

describe('/v1/embeddings on a chat model', () => {
  let ctx: Served;
  before(async () => {
    ctx = await serveInjected();
  });
  after(() => ctx.service.stop());

  test('is a 400 that says the model is a Chat | Completions model', async () => {
    const err = await errorOf(await postJson(ctx.baseUrl, '/v1/embeddings', { model: MODEL, input: 'hi' }));
    assert.equal(err.status, 400);
    assert.match(err.message, /is of type Chat \| Completions and cannot serve embeddings \(model type Embedding required\)/);
  });
});
