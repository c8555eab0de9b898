// Slow clients: a body that stops arriving, or trickles in past the upload deadline, is answered
// 408 naming the limit and its connection closed; a stream honours the client's Connection: close.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { pino } from 'pino';
import { parseCommandLine } from '../../../../src/config/index.js';
import { DEFAULT_UPLOAD_TIMEOUTS } from '../../../../src/frontends/http/body/index.js';
import { createHttpServer, postRoute } from '../../../../src/frontends/http/server.js';
import { HttpServiceState } from '../../../../src/frontends/http/service-state.js';
import { serveInProcess } from '../../../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
/** Generous bound for a socket to close; the timeouts under test are 1 s and 3 s. */
const CLOSE_BOUND_MS = 60_000;

interface Exchange {
  /** Everything the server sent before it closed the socket. */
  received: string;
}

/**
 * Opens a raw connection, sends `head` and then, every `trickleMs` if given, one more byte; resolves
 * when the server closes the socket (rejects if it has not within `boundMs`).
 */
function rawExchange(port: number, head: string, trickleMs?: number, boundMs = CLOSE_BOUND_MS): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let trickle: NodeJS.Timeout | undefined;
    const bound = setTimeout(() => {
      socket.destroy();
      reject(new Error(`socket still open after ${boundMs} ms; received ${JSON.stringify(received.slice(0, 200))}`));
    }, boundMs);
    socket.on('connect', () => {
      socket.write(head);
      if (trickleMs) trickle = setInterval(() => socket.write(' '), trickleMs);
    });
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(bound);
      resolve({ received });
    });
  });
}

const slowHead = (path = '/v1/chat/completions') =>
  `POST ${path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":`;

function bodyOf(exchange: Exchange): { message: string } {
  return JSON.parse(exchange.received.slice(exchange.received.indexOf('\r\n\r\n') + 4)) as { message: string };
}

describe('slow request bodies and Connection: close', () => {
  let ctx: Awaited<ReturnType<typeof serveInProcess>>;
  let port: number;

  before(async () => {
    ctx = await serveInProcess(['--speedup-ratio', '1000', '--enable-anthropic-api'], { DYN_HTTP_BODY_TIMEOUT_SECS: '1', DYN_HTTP_UPLOAD_TIMEOUT_SECS: '3' });
    port = Number(new URL(ctx.baseUrl).port);
  });
  after(async () => ctx.service.stop());

  test('100 connections whose body stops arriving all get 408 and are closed', async () => {
    const exchanges = await Promise.all(Array.from({ length: 100 }, () => rawExchange(port, slowHead())));
    for (const exchange of exchanges) {
      assert.match(exchange.received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.match(exchange.received, /\r\nconnection: close\r\n/i);
      assert.equal(bodyOf(exchange).message, 'Request body not received: no data for 1 s (DYN_HTTP_BODY_TIMEOUT_SECS)');
    }
  });

  test('a body that trickles in forever is cut at the upload deadline', async () => {
    const exchange = await rawExchange(port, slowHead(), 200);
    assert.match(exchange.received, /^HTTP\/1\.1 408 /);
    assert.equal(bodyOf(exchange).message, 'Request body not received within 3 s (DYN_HTTP_UPLOAD_TIMEOUT_SECS)');
  });

  test('the Anthropic route answers the timeout in its own shape', async () => {
    const exchange = await rawExchange(port, slowHead('/v1/messages'));
    assert.match(exchange.received, /^HTTP\/1\.1 408 /);
    const body = JSON.parse(exchange.received.slice(exchange.received.indexOf('\r\n\r\n') + 4)) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.match(body.error.message, /DYN_HTTP_BODY_TIMEOUT_SECS/);
  });

  test('a slow body to a route that does not exist is cut the same way', async () => {
    // fastify reads the body before it finds no route; the timeout ends that read.
    const exchange = await rawExchange(port, slowHead('/v1/nothing-here'));
    assert.match(exchange.received, /^HTTP\/1\.1 408 /);
  });

  test('a body sent in slow pieces that each come in time is served', async () => {
    const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    const half = Math.floor(body.length / 2);
    const exchange = await new Promise<Exchange>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let received = '';
      socket.on('connect', () => {
        socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`);
        setTimeout(() => socket.write(body.slice(half)), 300);
      });
      socket.on('data', (d: Buffer) => (received += d.toString()));
      socket.on('close', () => resolve({ received }));
    });
    assert.match(exchange.received, /^HTTP\/1\.1 200 /);
  });

  test('a stream ends with the socket closed when the client sent Connection: close', async () => {
    for (const [path, body] of [
      ['/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, stream: true }],
      ['/v1/responses', { model: MODEL, input: 'hi', max_output_tokens: 5, stream: true }],
      ['/v1/messages', { model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], stream: true }],
    ] as const) {
      const text = JSON.stringify(body);
      const head = `POST ${path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
      const exchange = await rawExchange(port, head);
      assert.match(exchange.received, /^HTTP\/1\.1 200 /, path);
      assert.match(exchange.received, /\r\nConnection: close\r\n/i, path);
      assert.match(exchange.received, /text\/event-stream/, path);
    }
  });

  test('keep-alive streams still reuse their connection', async () => {
    const client = new OpenAI({ baseURL: `${ctx.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    for (let i = 0; i < 2; i++) {
      const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, stream: true });
      let chunks = 0;
      for await (const _ of stream) chunks++;
      assert.ok(chunks > 0);
    }
  });
});

describe('the upload deadline on its own', () => {
  test('the default deadline is a minute, well inside the old five, and the service defaults agree with the options', () => {
    const parsed = parseCommandLine(['frontend'], {});
    assert.equal(parsed.kind, 'run');
    if (parsed.kind !== 'run') return;
    assert.equal(parsed.config.httpUploadTimeoutSecs, 60);
    assert.deepEqual(DEFAULT_UPLOAD_TIMEOUTS, { bodyTimeoutSecs: parsed.config.httpBodyTimeoutSecs, uploadTimeoutSecs: parsed.config.httpUploadTimeoutSecs });
  });

  test('a trickle that always beats the idle timer is still answered 408 and closed at the deadline', async () => {
    // The idle timer (30 s) never fires on a byte every 500 ms; only the 2 s deadline can end it.
    const app = createHttpServer(
      { bodyLimitMb: 1, uploadTimeouts: { bodyTimeoutSecs: 30, uploadTimeoutSecs: 2 }, overloadStatus: 529, logger: pino({ level: 'silent' }) },
      new HttpServiceState(529),
    );
    postRoute(app, '/v1/chat/completions', async (req) => req.body);
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const exchange = await rawExchange((app.server.address() as AddressInfo).port, slowHead(), 500, 20_000);
      assert.match(exchange.received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.match(exchange.received, /\r\nconnection: close\r\n/i);
      assert.equal(bodyOf(exchange).message, 'Request body not received within 2 s (DYN_HTTP_UPLOAD_TIMEOUT_SECS)');
    } finally {
      await app.close();
    }
  });
});
