import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { CallHomeServer, encodeTwoPart, encodeTwoPartHeader, STREAM_END_JSON, streamItemJson, TwoPartDecoder, type CallHomeInfo, type TwoPartMessage } from '../../../src/runtime/index.js';
import { CallHomeLinks } from '../../../src/runtime/request-plane/call-home-link.js';
import { sendResponseStream } from '../../../src/runtime/request-plane/call-home-sender.js';
import { eventually } from '../../support/in-process.js';

/** The frames a socket receives, as text: a header's JSON, or `body:` and a body's. */
function frames(socket: Socket): string[] {
  const seen: string[] = [];
  const decoder = new TwoPartDecoder();
  socket.on('data', (chunk: Buffer) => {
    for (const m of decoder.push(chunk)) seen.push(describe(m));
  });
  return seen;
}

const describe = (m: TwoPartMessage): string => (m.header.length > 0 ? m.header.toString('utf8') : `body:${m.body.toString('utf8')}`);

/** A caller's listener that keeps every connection a worker opens to it. */
async function caller(): Promise<{ address: string; sockets: Socket[]; received: string[][]; ended: boolean[]; close(): void }> {
  const sockets: Socket[] = [];
  const received: string[][] = [];
  const ended: boolean[] = [];
  const server = createServer((s) => {
    const at = sockets.push(s) - 1;
    received.push(frames(s));
    ended.push(false);
    s.on('end', () => (ended[at] = true));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    sockets,
    received,
    ended,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** Streams `values` on a link opened for `info` and resolves when the stream is over. */
async function answer(links: CallHomeLinks, info: CallHomeInfo, values: unknown[], controls: string[] = []): Promise<void> {
  const link = await links.open(info);
  const abort = new AbortController();
  link.begin(info, { control: (ctl) => controls.push(ctl), lost: () => abort.abort() });
  const items = values[Symbol.iterator]();
  const it: AsyncIterator<unknown> = { next: async () => items.next() };
  await sendResponseStream(link, it, await it.next(), abort.signal);
}

const END = [`body:${STREAM_END_JSON}`, '"sentinel"'];

test("worker side: an upstream caller's stream closes its connection after the sentinel, as tcp_server does", async () => {
  const front = await caller();
  const links = new CallHomeLinks();
  try {
    const info: CallHomeInfo = { address: front.address, subject: 's1', context: 'c', stream_type: 'response' };
    await answer(links, info, [{ a: 1 }]);
    await eventually(() => front.ended[0] === true, 5000, 'connection ended');
    assert.deepEqual(front.received[0], ['{"subject":"s1","stream_type":"response"}', '{"error":null}', `body:${streamItemJson('{"a":1}')}`, ...END]);
    await answer(links, { ...info, subject: 's2' }, [{ a: 2 }]);
    await eventually(() => front.ended[1] === true, 5000, 'second connection ended');
    assert.equal(front.sockets.length, 2, 'one connection per stream');
  } finally {
    links.close();
    front.close();
  }
});

test('worker side: a caller that offers keep_alive gets the connection back for its next stream once it releases it', async () => {
  const front = await caller();
  const links = new CallHomeLinks();
  try {
    const info: CallHomeInfo = { address: front.address, subject: 's1', context: 'c', stream_type: 'response', keep_alive: true };
    await answer(links, info, [{ a: 1 }]);
    await eventually(() => front.received[0]?.length === 5, 5000, 'first stream');
    assert.deepEqual(front.received[0], ['{"subject":"s1","stream_type":"response","keep_alive":true}', '{"error":null}', `body:${streamItemJson('{"a":1}')}`, ...END]);
    assert.equal(front.ended[0], false, 'the connection stays open');
    // A stop that crossed the end belongs to the finished stream; the release hands the connection back.
    front.sockets[0]!.write(Buffer.concat([encodeTwoPartHeader('stop'), encodeTwoPartHeader('release')]));
    await new Promise((r) => setTimeout(r, 50));
    const controls: string[] = [];
    await answer(links, { ...info, subject: 's2' }, [{ a: 2 }], controls);
    await eventually(() => front.received[0]?.length === 10, 5000, 'second stream on the same connection');
    assert.equal(front.sockets.length, 1, 'one connection for both streams');
    assert.deepEqual(front.received[0]!.slice(5), ['{"subject":"s2","stream_type":"response","keep_alive":true}', '{"error":null}', `body:${streamItemJson('{"a":2}')}`, ...END]);
    assert.deepEqual(controls, [], 'the late stop did not reach the next stream');
    // Not released: the next stream dials a new connection.
    await answer(links, { ...info, subject: 's3' }, [{ a: 3 }]);
    await eventually(() => front.received[1]?.length === 5, 5000, 'third stream');
    assert.equal(front.sockets.length, 2);
  } finally {
    links.close();
    front.close();
  }
});

/** A worker's connection to `address`, with the frames it receives. */
async function dialAs(address: string): Promise<{ socket: Socket; received: string[] }> {
  const [host, port] = address.split(':');
  const socket = connect({ host, port: Number(port) });
  await new Promise((r) => socket.once('connect', r));
  return { socket, received: frames(socket) };
}

async function drain(queue: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of queue) out.push(item);
  return out;
}

const streamFrames = (subject: string, keep: boolean, item: string): Buffer =>
  Buffer.concat([
    encodeTwoPartHeader(keep ? { subject, stream_type: 'response', keep_alive: true } : { subject, stream_type: 'response' }),
    encodeTwoPartHeader({ error: null }),
    encodeTwoPart(null, streamItemJson(item)),
    encodeTwoPart(null, STREAM_END_JSON),
    encodeTwoPartHeader('sentinel'),
  ]);

test('caller side: every stream offers keep_alive; a worker that takes it up carries the next stream on the same connection after the release', async () => {
  const server = new CallHomeServer({ maxMessageSize: 1 << 20, advertiseHost: '127.0.0.1', bindHost: '127.0.0.1' });
  try {
    const first = await server.open('r1');
    const second = await server.open('r2');
    assert.equal(first.info.keep_alive, true);
    const worker = await dialAs(first.info.address);
    worker.socket.write(streamFrames(first.info.subject, true, '{"n":1}'));
    assert.deepEqual(await drain(first.stream.queue), [{ n: 1 }]);
    await eventually(() => worker.received.length === 1, 5000, 'release');
    assert.deepEqual(worker.received, ['"release"']);
    worker.socket.write(streamFrames(second.info.subject, true, '{"n":2}'));
    assert.deepEqual(await drain(second.stream.queue), [{ n: 2 }]);
    // A stream stopped after its end sends nothing down the kept connection.
    first.stream.stop();
    await eventually(() => worker.received.length === 2, 5000, 'second release');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(worker.received, ['"release"', '"release"']);
    worker.socket.destroy();
  } finally {
    await server.close();
  }
});

test('caller side: a worker that does not take keep_alive up (upstream) gets no release and closes as before', async () => {
  const server = new CallHomeServer({ maxMessageSize: 1 << 20, advertiseHost: '127.0.0.1', bindHost: '127.0.0.1' });
  try {
    const { stream, info } = await server.open('r1');
    const worker = await dialAs(info.address);
    worker.socket.end(streamFrames(info.subject, false, '{"n":1}'));
    assert.deepEqual(await drain(stream.queue), [{ n: 1 }]);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(worker.received, []);
  } finally {
    await server.close();
  }
});

test('worker side: once the worker stops, a connection released afterwards is closed, not kept', async () => {
  const front = await caller();
  const links = new CallHomeLinks();
  try {
    await answer(links, { address: front.address, subject: 's1', context: 'c', stream_type: 'response', keep_alive: true }, [{ a: 1 }]);
    await eventually(() => front.received[0]?.length === 5, 5000, 'stream');
    links.close();
    front.sockets[0]!.write(encodeTwoPartHeader('release'));
    await eventually(() => front.ended[0] === true, 5000, 'connection closed after the release');
  } finally {
    front.close();
  }
});
