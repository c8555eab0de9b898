// /v1/images/generations and /v1/videos/generations (+ /stream) through `serve --model-type images`
// and `--model-type videos`: the official client's images.generate, deterministic PNGs as b64_json
// or data: URLs, the video clip and its frame stream, and the 400s and 404s.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { postJson, serveInjected } from '../../../support/in-process.js';
import { fetchFor } from '../../../support/injected-fetch.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const PNG_SIGNATURE = '89504e470d0a1a0a';

type Served = Awaited<ReturnType<typeof serveInjected>>;

function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.equal(bytes.subarray(0, 8).toString('hex'), PNG_SIGNATURE);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function dataUrlBytes(url: string, mime: string): Buffer {
  const prefix = `data:${mime};base64,`;
  assert.ok(url.startsWith(prefix), url.slice(0, 40));
  return Buffer.from(url.slice(prefix.length), 'base64');
}

async function errorOf(res: Response): Promise<{ status: number; message: string }> {
  return { status: res.status, message: ((await res.json()) as { message: string }).message };
}

describe('/v1/images/generations', () => {
  let ctx: Served;
  let client: OpenAI;
  before(async () => {
    ctx = await serveInjected(['--model-type', 'images']);
    client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused', maxRetries: 0 });
  });
  after(() => ctx.service.stop());

  test('client.images.generate returns n deterministic PNGs as b64_json', async () => {
    const res = await client.images.generate({ model: MODEL, prompt: 'a red fox', n: 2, size: '256x128', response_format: 'b64_json' });
    assert.equal(res.data!.length, 2);
    const [first, second] = res.data!.map((d) => Buffer.from(d.b64_json!, 'base64'));
    assert.deepEqual(pngSize(first!), { width: 64, height: 32 });
    assert.notDeepEqual(first, second);
    assert.equal(res.data![0]!.revised_prompt, 'a red fox');
    const again = await client.images.generate({ model: MODEL, prompt: 'a red fox', n: 1, size: '256x128', response_format: 'b64_json' });
    assert.equal(again.data![0]!.b64_json, res.data![0]!.b64_json);
    assert.ok(res.created > 0);
  });

  test('the default response_format is a data: URL', async () => {
    const res = await client.images.generate({ model: MODEL, prompt: 'a blue fox' });
    assert.deepEqual(pngSize(dataUrlBytes(res.data![0]!.url!, 'image/png')), { width: 64, height: 64 });
  });

  test('bad input is a 400 naming the field; unknown model 404; wrong type 400', async () => {
    const cases: [unknown, RegExp][] = [
      [{ model: MODEL }, /prompt/],
      [{ model: MODEL, prompt: 'x', n: 11 }, /n must be between 1 and 10/],
      [{ model: MODEL, prompt: 'x', size: 'big' }, /size must be WIDTHxHEIGHT/],
      [{ model: MODEL, prompt: 'x', response_format: 'gif' }, /response_format must be one of 'url', 'b64_json'/],
    ];
    for (const [body, message] of cases) {
      const err = await errorOf(await postJson(ctx.baseUrl, '/v1/images/generations', body));
      assert.equal(err.status, 400, JSON.stringify(body));
      assert.match(err.message, message);
    }
    await assert.rejects(client.images.generate({ model: 'nope', prompt: 'x' }), (e: InstanceType<typeof OpenAI.APIError>) => e.status === 404);
    await assert.rejects(
      client.embeddings.create({ model: MODEL, input: 'x' }),
      (e: InstanceType<typeof OpenAI.APIError>) => e.status === 400 && /is of type Images and cannot serve embeddings/.test(e.message),
    );
    const video = await errorOf(await postJson(ctx.baseUrl, '/v1/videos/generations', { model: MODEL, prompt: 'x' }));
    assert.equal(video.status, 400);
    assert.match(video.message, /is of type Images and cannot serve video generation/);
  });
});

describe('/v1/videos/generations', () => {
  let ctx: Served;
  before(async () => {
    ctx = await serveInjected(['--model-type', 'videos']);
  });
  after(() => ctx.service.stop());

  test('answers the completed clip: an animated PNG with one frame per seconds × fps', async () => {
    const body = { model: MODEL, prompt: 'waves', seconds: 1, size: '32x32', response_format: 'b64_json', nvext: { fps: 3 } };
    const res = await postJson(ctx.baseUrl, '/v1/videos/generations', body);
    assert.equal(res.status, 200);
    const video = (await res.json()) as { object: string; status: string; progress: number; model: string; data: { b64_json: string }[] };
    assert.equal(video.object, 'video');
    assert.equal(video.status, 'completed');
    assert.equal(video.progress, 100);
    assert.equal(video.model, MODEL);
    const apng = Buffer.from(video.data[0]!.b64_json, 'base64');
    assert.deepEqual(pngSize(apng), { width: 32, height: 32 });
    const actl = apng.indexOf('acTL');
    assert.equal(apng.readUInt32BE(actl + 4), 3);
  });

  test('the stream sends one in_progress item per frame, then the completed clip, then [DONE]', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/videos/generations/stream', { model: MODEL, prompt: 'waves', size: '8x8', nvext: { num_frames: 4 } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const events = (await res.text()).split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
    assert.equal(events.at(-1), '[DONE]');
    const items = events.slice(0, -1).map((e) => JSON.parse(e) as { status: string; progress: number; data: { url: string }[] });
    assert.deepEqual(items.map((i) => i.status), ['in_progress', 'in_progress', 'in_progress', 'in_progress', 'completed']);
    assert.ok(items.every((item, i) => i === 0 || item.progress > items[i - 1]!.progress));
    assert.deepEqual(pngSize(dataUrlBytes(items[0]!.data[0]!.url, 'image/png')), { width: 8, height: 8 });
    dataUrlBytes(items.at(-1)!.data[0]!.url, 'image/apng');
    const frames = items.slice(0, -1).map((i) => i.data[0]!.url);
    assert.equal(new Set(frames).size, 4, 'every frame differs');
  });

  test('bad input is a 400 naming the field, before any stream opens; unknown model 404', async () => {
    const cases: [unknown, RegExp][] = [
      [{ model: MODEL, prompt: '' }, /prompt must be a non-empty string/],
      [{ model: MODEL, prompt: 'x', seconds: 0 }, /seconds must be between 1 and 60/],
      [{ model: MODEL, prompt: 'x', nvext: { fps: 1000 } }, /nvext.fps must be between 1 and 60/],
    ];
    for (const path of ['/v1/videos/generations', '/v1/videos/generations/stream']) {
      for (const [body, message] of cases) {
        const err = await errorOf(await postJson(ctx.baseUrl, path, body));
        assert.equal(err.status, 400, `${path} ${JSON.stringify(body)}`);
        assert.match(err.message, message);
      }
      assert.equal((await postJson(ctx.baseUrl, path, { model: 'nope', prompt: 'x' })).status, 404);
    }
  });

  test('paths can be overridden', async () => {
    const moved = await serveInjected(['--model-type', 'videos'], { DYN_HTTP_SVC_VIDEOS_PATH: '/x/videos', DYN_HTTP_SVC_VIDEOS_STREAM_PATH: '/x/videos/live' });
    try {
      assert.equal((await postJson(moved.baseUrl, '/x/videos', { model: MODEL, prompt: 'x', nvext: { num_frames: 1 } })).status, 200);
      assert.equal((await postJson(moved.baseUrl, '/x/videos/live', { model: MODEL, prompt: 'x', nvext: { num_frames: 1 } })).status, 200);
      assert.equal((await postJson(moved.baseUrl, '/v1/videos/generations', { model: MODEL, prompt: 'x' })).status, 404);
    } finally {
      await moved.service.stop();
    }
  });
});
