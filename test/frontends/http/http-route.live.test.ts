import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { DEFAULT_UPLOAD_TIMEOUTS } from '../../../src/frontends/http/body/index.js';
import { mountRoute, type HttpRoute, type RouteContext } from '../../../src/frontends/http/http-route.js';
import { createHttpServer, postRoute } from '../../../src/frontends/http/server.js';
import { HttpServiceState } from '../../../src/frontends/http/service-state.js';

/** A route answering the length of the `text` it was sent. */
const lengthRoute = (bodyLimitMb?: number): HttpRoute => ({
  bodyLimitMb,
  register: (app, path) => postRoute(app, path, async (req) => ({ length: (req.body as { text: string }).text.length })),
});

const MIB = 1024 * 1024;

describe('a route with a body limit of its own', () => {
  let app: FastifyInstance;
  before(async () => {
    app = createHttpServer({ bodyLimitMb: 1, uploadTimeouts: DEFAULT_UPLOAD_TIMEOUTS, overloadStatus: 529, logger: pino({ level: 'silent' }) }, new HttpServiceState(529));
    // The test's routes read nothing from their context.
    const ctx = {} as RouteContext;
    mountRoute(app, '/service-limit', lengthRoute(), ctx);
    mountRoute(app, '/smaller', lengthRoute(0.5), ctx);
    mountRoute(app, '/larger', lengthRoute(2), ctx);
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => app.close());

  // A real socket: the upload timers need one.
  const post = async (path: string, chars: number): Promise<{ status: number; body: Record<string, unknown> }> => {
    const { port } = app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x'.repeat(chars) }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  test('the service limit, named by its variable, where the route has none', async () => {
    assert.equal((await post('/service-limit', MIB / 2)).status, 200);
    const res = await post('/service-limit', MIB);
    assert.equal(res.status, 413);
    assert.equal(res.body.message, 'Request body exceeds the limit of 1 MB set by DYN_HTTP_BODY_LIMIT_MB');
  });

  test('a smaller limit of its own refuses what the service would take', async () => {
    assert.equal((await post('/smaller', MIB / 4)).status, 200);
    const res = await post('/smaller', MIB / 2);
    assert.equal(res.status, 413);
    assert.equal(res.body.message, 'Request body exceeds the limit of 0.5 MB of this route');
  });

  test('a larger limit of its own takes what the service would refuse', async () => {
    const res = await post('/larger', 1.5 * MIB);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { length: 1.5 * MIB });
    assert.equal((await post('/larger', 2 * MIB)).status, 413);
  });
});
