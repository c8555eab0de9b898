// --frontend-route-extension MODULE:FUNCTION: extension modules add routes to the HTTP server with
// the served models at hand; typed errors they throw get the frontend's error envelope; every bad
// extension is a startup error that names it.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '../../../src/config/index.js';
import { REPO_ROOT } from '../../support/processes.js';
import { serveInjected } from '../../support/in-process.js';
import { fetchFor } from '../../support/injected-fetch.js';

const dir = mkdtempSync(path.join(tmpdir(), 'route-ext-'));
const library = pathToFileURL(path.join(REPO_ROOT, 'dist/src/index.js')).href;
const extension = path.join(dir, 'routes.mjs');
writeFileSync(
  extension,
  `import { ValidationError } from ${JSON.stringify(library)};
export function register({ app, models, logger }) {
  app.get('/v1/ext/models', async () => ({ names: models.list().map((m) => m.name) }));
  app.get('/v1/ext/context/:model', async (req) => ({ context: models.get(req.params.model).card.contextLength }));
  app.post('/v1/ext/echo', async (req) => {
    if (typeof req.body?.say !== 'string') throw new ValidationError('say: expected a string');
    return { said: req.body.say };
  });
  logger.info('registered');
}
export async function later({ app }) {
  await new Promise((r) => setTimeout(r, 5));
  app.get('/v1/ext/later', async () => 'ok');
}
export function broken() {
  throw new Error('no database configured');
}
export const notAFunction = 42;
`,
);

describe('route extensions on a running frontend', () => {
  let ctx: Awaited<ReturnType<typeof serveInjected>>;
  before(async () => {
    ctx = await serveInjected(['--frontend-route-extension', `${extension}:register`], { DYN_FRONTEND_ROUTE_EXTENSIONS: 'ignored:by-cli' });
  });
  after(async () => ctx.service.stop());

  test('the extension sees the served models', async () => {
    const res = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/ext/models`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { names: ['Qwen/Qwen3-0.6B'] });
    const context = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/ext/context/${encodeURIComponent('Qwen/Qwen3-0.6B')}`);
    assert.deepEqual(await context.json(), { context: 40960 });
  });

  test('its routes are listed in /openapi.json with the built-in ones', async () => {
    const doc = (await (await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    assert.ok(doc.paths['/v1/ext/models']?.get);
    assert.ok(doc.paths['/v1/ext/echo']?.post);
    assert.ok(doc.paths['/v1/chat/completions']?.post);
  });

  test('typed errors thrown by its handlers get the error envelope: 404 unknown model, 400 bad body', async () => {
    const unknown = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/ext/context/nope`);
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as { message: string }).message, /Model not found/);
    const bad = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/ext/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /say: expected a string/);
    const ok = await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/ext/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"say":"hi"}' });
    assert.deepEqual(await ok.json(), { said: 'hi' });
  });

  test('the built-in routes are still there', async () => {
    assert.equal((await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/models`)).status, 200);
  });
});

test('several extensions from DYN_FRONTEND_ROUTE_EXTENSIONS (whitespace-separated), async ones awaited', async () => {
  const ctx = await serveInjected([], { DYN_FRONTEND_ROUTE_EXTENSIONS: `${extension}:register ${extension}:later` });
  try {
    assert.equal((await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/ext/models`)).status, 200);
    assert.equal(await (await fetchFor(ctx.baseUrl)(`${ctx.baseUrl}/v1/ext/later`)).text(), 'ok');
  } finally {
    await ctx.service.stop();
  }
});

async function startupError(args: string[]): Promise<string> {
  try {
    const ctx = await serveInjected(args);
    await ctx.service.stop();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail('startup should have failed');
}

test('a bad extension is a startup error naming it', async () => {
  const missing = path.join(dir, 'missing.mjs');
  assert.match(await startupError(['--frontend-route-extension', `${missing}:register`]), new RegExp(`${missing}:register: cannot load module`));
  assert.match(
    await startupError(['--frontend-route-extension', `${extension}:nope`]),
    /routes\.mjs:nope: module '.*routes\.mjs' exports no function 'nope' \(its functions: .*register.*\)/,
  );
  assert.match(await startupError(['--frontend-route-extension', `${extension}:notAFunction`]), /exports no function 'notAFunction'/);
  assert.match(
    await startupError(['--frontend-route-extension', `${extension}:broken`]),
    /routes\.mjs:broken failed to register its routes: no database configured/,
  );
  assert.match(await startupError(['--frontend-route-extension', 'routes-without-function']), /must be MODULE:FUNCTION/);
  assert.match(await startupError(['--frontend-route-extension', `${extension}:register`, '-i']), /cannot be combined with --interactive/);
  assert.match(
    await startupError(['--frontend-route-extension', `${extension}:register`, '--kserve-grpc-server', '--grpc-metrics-port', '65535']),
    /cannot be combined with --kserve-grpc-server/,
  );
});
