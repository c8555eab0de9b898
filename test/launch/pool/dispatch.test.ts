// The primary's hand-over of accepted connections, over stand-in processes and sockets: round robin
// preferring a process with no send in flight, a send not written handed to another process, the
// primary's copy closed once a send is written, a reset when no process serves the listener.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { ConnectionDispatch } from '../../../src/launch/pool/dispatch.js';
import type { ListenerName } from '../../../src/launch/pool/messages.js';

type SendCallback = (err: Error | null) => void;
type Process = Parameters<ConnectionDispatch['add']>[0];

/** A process whose sends complete when the test says so. */
class StandInProcess {
  connected = true;
  readonly sent: { listener: ListenerName; socket: Socket; done: SendCallback }[] = [];

  send(msg: { listener: ListenerName }, socket: Socket, _options: unknown, done: SendCallback): boolean {
    this.sent.push({ listener: msg.listener, socket, done });
    return true;
  }

  get child(): Process {
    return this as unknown as Process;
  }
}

interface StandInSocket {
  readonly socket: Socket;
  closed: 'no' | 'closed' | 'reset';
}

function standInSocket(): StandInSocket {
  const s: StandInSocket = {
    closed: 'no',
    socket: {
      destroy: () => (s.closed = 'closed'),
      resetAndDestroy: () => (s.closed = 'reset'),
    } as unknown as Socket,
  };
  return s;
}

function dispatcher(): { dispatch: ConnectionDispatch; unserved: ListenerName[] } {
  const unserved: ListenerName[] = [];
  return { dispatch: new ConnectionDispatch((listener) => unserved.push(listener)), unserved };
}

/** Two processes serving HTTP, `a` first in the round. */
function twoServingHttp(): { dispatch: ConnectionDispatch; a: StandInProcess; b: StandInProcess } {
  const { dispatch } = dispatcher();
  const [a, b] = [new StandInProcess(), new StandInProcess()];
  dispatch.add(a.child, ['http']);
  dispatch.add(b.child, ['http']);
  return { dispatch, a, b };
}

test('round robin over the processes free of sends in flight; the primary closes its copy once a send is written', () => {
  const { dispatch, a, b } = twoServingHttp();
  const first = standInSocket();
  dispatch.dispatch('http', first.socket);
  a.sent[0]!.done(null);
  assert.equal(first.closed, 'closed');
  const second = standInSocket();
  dispatch.dispatch('http', second.socket);
  assert.deepEqual([a.sent.length, b.sent.length], [1, 1]);
  // `b` has not written its send: the next goes to `a`, free again.
  dispatch.dispatch('http', standInSocket().socket);
  assert.deepEqual([a.sent.length, b.sent.length], [2, 1]);
  assert.equal(second.closed, 'no');
});

test('a process gone before its sends were written: they go to another process, not lost', () => {
  const { dispatch, a, b } = twoServingHttp();
  const held = standInSocket();
  dispatch.dispatch('http', held.socket);
  dispatch.remove(a.child);
  assert.equal(b.sent.length, 1);
  assert.equal(b.sent[0]!.socket, held.socket);
  // The dead channel's callback, if it ever comes, changes nothing.
  a.sent[0]!.done(new Error('EPIPE'));
  assert.equal(b.sent.length, 1);
  b.sent[0]!.done(null);
  assert.equal(held.closed, 'closed');
});

test('a send that fails goes to another process', () => {
  const { dispatch, a, b } = twoServingHttp();
  const socket = standInSocket();
  dispatch.dispatch('http', socket.socket);
  a.connected = false;
  a.sent[0]!.done(new Error('EPIPE'));
  assert.equal(b.sent[0]!.socket, socket.socket);
  assert.equal(socket.closed, 'no');
});

test('gRPC connections go only to the processes serving gRPC; with none, a connection is reset at once and said', () => {
  const { dispatch, unserved } = dispatcher();
  const [both, httpOnly] = [new StandInProcess(), new StandInProcess()];
  dispatch.add(httpOnly.child, ['http']);
  dispatch.add(both.child, ['http', 'grpc']);
  for (let i = 0; i < 3; i++) {
    dispatch.dispatch('grpc', standInSocket().socket);
    both.sent.at(-1)!.done(null);
  }
  assert.deepEqual([both.sent.length, httpOnly.sent.length], [3, 0]);
  dispatch.remove(both.child);
  const refused = standInSocket();
  dispatch.dispatch('grpc', refused.socket);
  assert.equal(refused.closed, 'reset');
  assert.deepEqual(unserved, ['grpc']);
});
