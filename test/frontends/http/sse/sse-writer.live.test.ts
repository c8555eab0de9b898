// SseWriter on a plain node:http server: what reaches the client, byte for byte, whether the
// writer frames chunks itself (HTTP/1.1) or leaves the body unframed (HTTP/1.0).
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { EventTemplate, SseWriter } from '../../../../src/frontends/http/sse/sse-writer.js';

const LONG = 'ü'.repeat(3000);
/** Text that needs JSON escapes: quotes, a backslash, control characters, a lone surrogate. */
const ESCAPED = 'say "hi"\\ \n\t\u0001 \ud800 end';
const EXPECTED = `data: {"a":1}\n\ndata: {"b":2}\n\n: keep-going\n\ndata: {"t":"x"}\n\ndata: {"t":"é ✓"}\n\ndata: {"t":${JSON.stringify(ESCAPED)}}\n\ndata: {"t":"${LONG}"}\n\ndata: {"c":"é ✓"}\n\ndata: [DONE]\n\n`;
const TEMPLATE = new EventTemplate('{"t":', '}');

/** Events over several event-loop turns, so the coalescer writes more than once before the end. */
function stream(res: http.ServerResponse): void {
  const sse = new SseWriter(res);
  sse.data('{"a":1}');
  sse.data('{"b":2}');
  setImmediate(() => {
    sse.comment('keep-going');
    // Templated events, one past the first buffer's size: the queued bytes move to a bigger one.
    sse.templated(TEMPLATE, 'x');
    sse.templated(TEMPLATE, 'é ✓');
    sse.templated(TEMPLATE, ESCAPED);
    sse.templated(TEMPLATE, LONG);
    setTimeout(() => {
      sse.data('{"c":"é ✓"}');
      setTimeout(() => sse.done(), 5);
    }, 5);
  });
}

/** Sends `request` on a raw socket and gives back everything the server sent until it closed. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Undoes chunked transfer coding, checking every chunk's size against its bytes. */
function dechunk(body: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    assert.ok(lineEnd > at, 'a chunk size line');
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    assert.ok(Number.isInteger(size), 'a hex chunk size');
    const start = lineEnd + 2;
    if (size === 0) {
      assert.equal(body.subarray(start).toString('latin1'), '\r\n', 'the last chunk ends the body');
      return Buffer.concat(parts).toString('utf8');
    }
    parts.push(body.subarray(start, start + size));
    assert.equal(body.subarray(start + size, start + size + 2).toString('latin1'), '\r\n', 'CRLF after the chunk data');
    at = start + size + 2;
  }
}

describe('SseWriter', () => {
  let server: http.Server;
  let port: number;

  before(async () => {
    server = http.createServer((_req, res) => stream(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('HTTP/1.1: every event arrives in valid chunks, multi-byte text counted in bytes', async () => {
    const raw = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const split = raw.indexOf('\r\n\r\n');
    assert.match(raw.slice(0, split), /transfer-encoding: chunked/i);
    assert.match(raw.slice(0, split), /content-type: text\/event-stream/i);
    assert.equal(dechunk(Buffer.from(raw.slice(split + 4), 'utf8')), EXPECTED);
  });

  test('HTTP/1.1 over keep-alive: the next request on the same connection is answered after the stream', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (): Promise<{ body: string; socket: net.Socket }> =>
      new Promise((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () => resolve({ body, socket: res.socket }));
          })
          .on('error', reject);
      });
    const first = await get();
    const second = await get();
    agent.destroy();
    assert.equal(first.body, EXPECTED);
    assert.equal(second.body, EXPECTED);
    assert.equal(first.socket, second.socket, 'one connection served both');
  });

  test('HTTP/1.0: the body is the events themselves, unframed, and the connection closes', async () => {
    const raw = await rawExchange(port, 'GET / HTTP/1.0\r\n\r\n');
    const split = raw.indexOf('\r\n\r\n');
    assert.doesNotMatch(raw.slice(0, split), /transfer-encoding/i);
    assert.equal(raw.slice(split + 4), EXPECTED);
  });

  test('a client that stops reading for a while gets every event intact (a written chunk is reused only once the socket took it)', async () => {
    const events = 8000;
    const text = (i: number): string => `event ${i} ${'x'.repeat(500 + (i % 700))}`;
    const paced = http.createServer((_req, res) => {
      const sse = new SseWriter(res);
      let i = 0;
      // Ten events a turn: while the client reads, the socket takes each chunk at once; while it
      // does not, the kernel's buffers fill and chunks wait in the socket.
      const tick = (): void => {
        for (let k = 0; k < 10 && i < events; k++, i++) sse.templated(TEMPLATE, text(i));
        if (i < events) setImmediate(tick);
        else sse.done();
      };
      tick();
    });
    await new Promise<void>((resolve) => paced.listen(0, '127.0.0.1', resolve));
    const pacedPort = (paced.address() as net.AddressInfo).port;
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const socket = net.connect(pacedPort, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      const chunks: Buffer[] = [];
      let paused = false;
      socket.on('data', (d: Buffer) => {
        chunks.push(d);
        if (!paused) {
          paused = true;
          socket.pause();
          setTimeout(() => socket.resume(), 500);
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks)));
    });
    await new Promise((resolve) => paced.close(resolve));
    const split = raw.indexOf('\r\n\r\n');
    let expected = '';
    for (let i = 0; i < events; i++) expected += `data: {"t":${JSON.stringify(text(i))}}\n\n`;
    assert.equal(dechunk(raw.subarray(split + 4)), `${expected}data: [DONE]\n\n`);
  });
});
