import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { MESSAGES_FIELDS } from '../../../../src/frontends/http/anthropic/request.js';
import { RESPONSES_FIELDS } from '../../../../src/frontends/http/responses/request.js';
import { CHAT_FIELDS, COMPLETION_FIELDS } from '../../../../src/pipeline/preprocess/validate/index.js';
import { postJson, serveInjected } from '../../../support/in-process.js';
import { fetchFor } from '../../../support/injected-fetch.js';

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
};
type Operation = {
  summary?: string;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
};
type Schema = { required?: string[]; properties: Record<string, unknown>; example?: unknown };

/**
 * Every route of the service at its default path, with the methods /openapi.json must list.
 * Extend it when a route family is added.
 */
const ROUTES: [string, string[]][] = [
  ['/v1/chat/completions', ['post']],
  ['/v1/completions', ['post']],
  ['/v1/responses', ['post']],
  ['/v1/responses/input_tokens', ['post']],
  ['/v1/responses/compact', ['post']],
  ['/v1/responses/{id}', ['get', 'delete']],
  ['/v1/responses/{id}/input_items', ['get']],
  ['/v1/responses/{id}/cancel', ['post']],
  ['/v1/messages', ['post']],
  ['/v1/messages/count_tokens', ['post']],
  ['/v1/embeddings', ['post']],
  ['/v1/images/generations', ['post']],
  ['/v1/videos/generations', ['post']],
  ['/v1/videos/generations/stream', ['post']],
  ['/v1/models', ['get']],
  ['/v1/models/{*}', ['get']],
  ['/health', ['get']],
  ['/live', ['get']],
  ['/metrics', ['get']],
  ['/busy_threshold', ['get', 'post']],
  ['/tokenize', ['post']],
  ['/detokenize', ['post']],
  ['/inference/v1/generate', ['post']],
  ['/v2/health/live', ['get']],
  ['/v2/health/ready', ['get']],
  ['/v2', ['get']],
  ['/v2/models/stats', ['get']],
  ['/v2/models/{model}', ['get']],
  ['/v2/models/{model}/versions/{version}', ['get']],
  ['/v2/models/{model}/ready', ['get']],
  ['/v2/models/{model}/config', ['get']],
  ['/v2/models/{model}/stats', ['get']],
  ['/v2/models/{model}/infer', ['post']],
  ['/v2/models/{model}/versions/{version}/infer', ['post']],
  ['/v2/models/{model}/generate', ['post']],
  ['/v2/models/{model}/generate_stream', ['post']],
  ['/v2/repository/index', ['post']],
  ['/v2/repository/models/{model}/load', ['post']],
  ['/v2/repository/models/{model}/unload', ['post']],
];

async function fetchDoc(baseUrl: string, path = '/openapi.json'): Promise<Doc> {
  const res = await fetchFor(baseUrl)(`${baseUrl}${path}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return (await res.json()) as Doc;
}

function bodySchema(doc: Doc, path: string): Schema {
  const schema = doc.paths[path]?.post?.requestBody?.content['application/json']?.schema;
  assert.ok(schema, `no JSON body schema for POST ${path}`);
  return schema;
}

describe('/openapi.json and /docs at their default paths', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  let doc: Doc;
  before(async () => {
    ctx = await serveInjected(['--enable-anthropic-api']);
    doc = await fetchDoc(ctx.baseUrl);
  });
  after(async () => ctx.service.stop());

  test('an OpenAPI 3 document titled as upstream, listing every route with exactly its methods', () => {
    assert.match(doc.openapi, /^3\./);
    assert.equal(doc.info.title, 'NVIDIA Dynamo OpenAI Frontend');
    assert.ok(doc.info.version.length > 0);
    for (const [path, methods] of ROUTES) {
      assert.deepEqual(Object.keys(doc.paths[path] ?? {}).sort(), [...methods].sort(), path);
      for (const method of methods) {
        const op = doc.paths[path]![method]!;
        assert.ok(op.summary, `${method} ${path} has a summary`);
        assert.ok(op.responses['200'], `${method} ${path} documents its 200`);
      }
    }
    // The document, the UI and the 405 answers are machinery, not API.
    for (const hidden of ['/openapi.json', '/docs', '/docs/json']) assert.equal(doc.paths[hidden], undefined, hidden);
  });

  test('the request bodies are the validators’ own field tables, with their required fields and an example', () => {
    const chat = bodySchema(doc, '/v1/chat/completions');
    assert.deepEqual(chat.required, ['model', 'messages']);
    assert.deepEqual(Object.keys(chat.properties).sort(), Object.keys(CHAT_FIELDS).sort());
    assert.ok(chat.example);
    const completions = bodySchema(doc, '/v1/completions');
    assert.deepEqual(completions.required, ['model']);
    assert.deepEqual(Object.keys(completions.properties).sort(), Object.keys(COMPLETION_FIELDS).sort());
    const responses = bodySchema(doc, '/v1/responses');
    assert.deepEqual(responses.required, ['model', 'input']);
    assert.deepEqual(Object.keys(responses.properties).sort(), [...RESPONSES_FIELDS].sort());
    const messages = bodySchema(doc, '/v1/messages');
    assert.deepEqual(messages.required, ['model', 'messages', 'max_tokens']);
    assert.deepEqual(Object.keys(messages.properties).sort(), [...MESSAGES_FIELDS].sort());
    assert.ok(bodySchema(doc, '/busy_threshold').properties.active_decode_blocks_threshold);
  });

  test('inference routes document their JSON and SSE answers and their 400/404/503 errors', () => {
    for (const path of ['/v1/chat/completions', '/v1/completions', '/v1/responses']) {
      const { responses } = doc.paths[path]!.post!;
      assert.deepEqual(Object.keys(responses['200']!.content ?? {}).sort(), ['application/json', 'text/event-stream']);
      for (const status of ['400', '404', '503']) assert.ok(responses[status]?.content?.['application/json'], `${path} ${status}`);
    }
  });

  test('the schemas describe without judging: validation keeps its own messages', async () => {
    const res = await postJson(ctx.baseUrl, '/v1/chat/completions', { model: 'Qwen/Qwen3-0.6B', messages: 5 });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { message: string };
    assert.equal(body.message, 'Failed to deserialize the JSON body into the target type: messages: invalid type: integer `5`, expected a sequence');
  });

  test('/docs serves Swagger UI from the installed package, with no outside URL', async () => {
    for (const path of ['/docs', '/docs/']) {
      const res = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const html = await res.text();
      assert.match(html, /swagger-ui-bundle\.js/);
      assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//, 'no CDN');
    }
    const bundle = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/docs/static/swagger-ui-bundle.js`);
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
  });
});

describe('path overrides, the _ENV spellings included, are where the routes and the document put them', () => {
  const env = {
    DYN_HTTP_SVC_CHAT_PATH_ENV: '/api/chat/completions',
    DYN_HTTP_SVC_CMP_PATH: '/api/completions',
    DYN_HTTP_SVC_RESPONSES_PATH_ENV: '/api/responses',
    DYN_ENABLE_ANTHROPIC_API: '1',
    DYN_HTTP_SVC_ANTHROPIC_PATH_ENV: '/api/messages',
    DYN_HTTP_SVC_EMB_PATH_ENV: '/api/embeddings',
    DYN_HTTP_SVC_IMAGES_PATH: '/api/images',
    DYN_HTTP_SVC_VIDEOS_PATH: '/api/videos',
    DYN_HTTP_SVC_VIDEOS_STREAM_PATH: '/api/videos/stream',
    DYN_HTTP_SVC_MODELS_PATH_ENV: '/api/models',
    DYN_HTTP_SVC_HEALTH_PATH: '/ops/health',
    DYN_HTTP_SVC_LIVE_PATH_ENV: '/ops/live',
    DYN_HTTP_SVC_METRICS_PATH: '/ops/metrics',
    DYN_HTTP_SVC_BUSY_THRESHOLD_PATH: '/ops/busy',
    DYN_HTTP_SVC_OPENAPI_PATH: '/api/spec.json',
    DYN_HTTP_SVC_DOCS_PATH: '/api/ui',
    DYN_HTTP_SVC_TOKENIZE_PATH: '/api/tokenize',
    DYN_HTTP_SVC_DETOKENIZE_PATH: '/api/detokenize',
    DYN_HTTP_SVC_INFERENCE_GENERATE_PATH: '/api/inference/generate',
  };
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  before(async () => {
    ctx = await serveInjected([], env);
  });
  after(async () => ctx.service.stop());

  test('the document lists the configured paths and none of the defaults', async () => {
    const doc = await fetchDoc(ctx.baseUrl, '/api/spec.json');
    // Triton's /v2 paths are fixed by its protocol: no option moves them.
    assert.deepEqual(Object.keys(doc.paths).filter((p) => !p.startsWith('/v2')).sort(), [
      '/api/chat/completions',
      '/api/completions',
      '/api/detokenize',
      '/api/embeddings',
      '/api/images',
      '/api/inference/generate',
      '/api/messages',
      '/api/messages/count_tokens',
      '/api/models',
      '/api/models/{*}',
      '/api/responses',
      '/api/responses/compact',
      '/api/responses/input_tokens',
      '/api/responses/{id}',
      '/api/responses/{id}/cancel',
      '/api/responses/{id}/input_items',
      '/api/tokenize',
      '/api/videos',
      '/api/videos/stream',
      '/ops/busy',
      '/ops/health',
      '/ops/live',
      '/ops/metrics',
    ]);
    assert.equal((await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/openapi.json`)).status, 404);
    assert.equal((await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/api/ui`)).status, 200);
  });

  test('an OpenAI client pointed at the moved routes works unchanged', async () => {
    const client = new OpenAI({ baseURL: `${ctx.baseUrl}/api`, fetch: fetchFor(ctx.baseUrl), apiKey: 'unused' });
    const models = await client.models.list();
    const model = models.data[0]!.id;
    const chat = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
    assert.equal(chat.object, 'chat.completion');
    const completion = await client.completions.create({ model, prompt: 'hi', max_tokens: 3 });
    assert.equal(completion.object, 'text_completion');
    const response = await client.responses.create({ model, input: 'hi', max_output_tokens: 3 });
    assert.equal(response.object, 'response');
    const message = await postJson(ctx.baseUrl, '/api/messages', { model, max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(((await message.json()) as { type: string }).type, 'message');
    assert.equal((await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/ops/live`)).status, 200);
  });
});

test('with the admin API off, /busy_threshold is absent from the document too', async () => {
  const ctx = await serveInjected([], { DYN_DISABLE_FRONTEND_ADMIN_API: '1' });
  try {
    const doc = await fetchDoc(ctx.baseUrl);
    assert.equal(doc.paths['/busy_threshold'], undefined);
    assert.ok(doc.paths['/v1/chat/completions']);
  } finally {
    await ctx.service.stop();
  }
});

test('two routes set to one path stop startup with a config error naming both variables', async () => {
  await assert.rejects(
    serveInjected([], { DYN_HTTP_SVC_DOCS_PATH: '/health' }),
    (err: Error & { exitCode?: number }) =>
      err.exitCode === 2 && err.message === "DYN_HTTP_SVC_HEALTH_PATH and DYN_HTTP_SVC_DOCS_PATH are both '/health': every route needs its own path",
  );
});
