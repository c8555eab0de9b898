// A client that goes away while its request body is arriving is an ordinary event, not a server
// fault: it is logged quietly (debug, one line, no stack) and never at error level.

import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_UPLOAD_TIMEOUTS } from '../../../../src/frontends/http/body/index.js';
import { createHttpServer, frameworkErrorHandler, postRoute } from '../../../../src/frontends/http/server.js';
import { HttpServiceState } from '../../../../src/frontends/http/service-state.js';
import { capturingLogger } from '../../../support/captured-logs.js';
import { eventually } from '../../../support/in-process.js';

/** pino's number for the error level. */
const ERROR_LEVEL = 50;

/** Sends the head and the first `sent` bytes of a `length`-byte body, then destroys the socket. */
async function abandonUpload(port: number, path: string, length: number, sent: number): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const body = `{"text":"${'x'.repeat(length - 12)}"}`;
  socket.write(`POST ${path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  await new Promise<void>((resolve) => socket.write(body.slice(0, sent), () => resolve()));
  // Give the server the bytes before the connection goes.
  await new Promise((r) => setTimeout(r, 50));
  socket.destroy();
}

describe('a client closing mid-upload', () => {
  let app: FastifyInstance;
  let port: number;
  const lines: Record<string, unknown>[] = [];

  before(async () => {
    // Bodies of 1 KiB and more go to the parse thread, so both read paths are seen.
    const state = new HttpServiceState(529);
    app = createHttpServer(
      { bodyLimitMb: 1, parseThreadKb: 1, uploadTimeouts: DEFAULT_UPLOAD_TIMEOUTS, overloadStatus: 529, logger: capturingLogger('debug', lines) },
      state,
    );
    postRoute(app, '/echo', async (req) => req.body);
    // A scope reading raw bytes with fastify's own reader, as Triton's binary routes do.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      scope.setErrorHandler(frameworkErrorHandler(1, state));
      postRoute(scope, '/bytes', async (req) => ({ length: (req.body as Buffer).length }));
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  after(() => app.close());

  const aborts = () => lines.filter((l) => /closed the connection before/.test(String(l.msg)));

  for (const [what, path, length, sent] of [
    ['a small body', '/echo', 200, 100],
    ['a body bound for the parse thread', '/echo', 64 * 1024, 32 * 1024],
    ["a body read by fastify's buffer reader", '/bytes', 200, 100],
  ] as const) {
    test(`${what}: one quiet line, no error and no stack`, async () => {
      lines.length = 0;
      await abandonUpload(port, path, length, sent);
      await eventually(() => aborts().length > 0, 10_000, 'the abort to be logged');
      // Anything else the abort would log has had its turn by now.
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(lines.filter((l) => (l.level as number) >= ERROR_LEVEL), []);
      assert.equal(aborts().length, 1);
      assert.ok((aborts()[0]!.level as number) <= 30, 'logged at info or debug');
      for (const line of lines) assert.doesNotMatch(JSON.stringify(line), /"stack"|\\n\s+at /);
    });
  }
});
