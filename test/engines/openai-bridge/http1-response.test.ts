import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Http1ResponseParser, MalformedResponseError } from '../../../src/engines/openai-bridge/http1-response.js';

interface Read {
  status: number;
  body: string;
  ended: boolean;
}

function reader(): { parser: Http1ResponseParser; read: Read } {
  const read: Read = { status: 0, body: '', ended: false };
  const parser = new Http1ResponseParser({
    head: (status) => void (read.status = status),
    body: (bytes) => void (read.body += bytes.toString('latin1')),
    end: () => void (read.ended = true),
  });
  return { parser, read };
}

/** The response fed in two pieces, split at every position. */
function everySplit(response: string, check: (read: Read, parser: Http1ResponseParser) => void): void {
  const bytes = Buffer.from(response, 'latin1');
  for (let at = 0; at <= bytes.length; at++) {
    const { parser, read } = reader();
    parser.push(bytes.subarray(0, at));
    parser.push(bytes.subarray(at));
    check(read, parser);
  }
}

test('a chunked body, split anywhere, comes whole without its framing; extensions and trailers are skipped', () => {
  const response =
    'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
    '6\r\ndata: \r\n' +
    'b;ext=1\r\n{"a":"\u00e9"}\n\n\r\n' +
    '0\r\nx-trailer: 1\r\n\r\n';
  everySplit(response, (read, parser) => {
    assert.equal(read.status, 200);
    assert.equal(read.body, 'data: {"a":"\u00e9"}\n\n');
    assert.equal(read.ended, true);
    assert.equal(parser.complete, true);
    assert.equal(parser.keepAlive, true);
  });
});

test('a content-length body ends at its length; 1xx answers are skipped; the server keep-alive timeout is read', () => {
  const response = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400 Bad Request\r\nContent-Length: 5\r\nKeep-Alive: timeout=5\r\n\r\nhello';
  everySplit(response, (read, parser) => {
    assert.deepEqual(read, { status: 400, body: 'hello', ended: true });
    assert.equal(parser.keepAlive, true);
    assert.equal(parser.idleTimeoutSecs, 5);
  });
});

test('connection: close and HTTP/1.0 without keep-alive end the connection; a body without length ends at the close', () => {
  const { parser, read } = reader();
  parser.push(Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'));
  assert.equal(read.ended, true);
  assert.equal(parser.keepAlive, false);

  const old = reader();
  old.parser.push(Buffer.from('HTTP/1.0 200 OK\r\n\r\nsome'));
  old.parser.push(Buffer.from(' text'));
  assert.equal(old.read.ended, false);
  assert.equal(old.parser.close(), true);
  assert.deepEqual(old.read, { status: 200, body: 'some text', ended: true });
  assert.equal(old.parser.keepAlive, false);
});

test('a response cut before its end is told apart at the close; reset reads the next response', () => {
  const { parser, read } = reader();
  parser.push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel'));
  assert.equal(parser.close(), false);
  assert.equal(read.ended, false);

  const next = reader();
  next.parser.push(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'));
  assert.equal(next.read.ended, true);
  next.parser.reset();
  assert.equal(next.parser.untouched, true);
  next.parser.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
  assert.equal(next.read.body, 'ok');
});

test('a response that breaks the protocol throws', () => {
  for (const bad of ['SSH-2.0-OpenSSH\r\n\r\n', 'HTTP/1.1 200 OK\r\nno colon\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n']) {
    assert.throws(() => reader().parser.push(Buffer.from(bad)), MalformedResponseError, bad);
  }
  assert.throws(() => reader().parser.push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n')), MalformedResponseError);
});
