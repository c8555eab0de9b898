// Worker side of a response stream: dial the caller's address, then handshake, prologue, one
// body-only frame per item, `complete_final`, sentinel (reference/upstream-wire.md §4). A "stop" or
// "kill" from the caller on the same socket aborts the handler.
import type { Socket } from 'node:net';
import {
  encodeTwoPart,
  encodeTwoPartHeader,
  parseStreamControl,
  STREAM_END_JSON,
  streamItemJson,
  TwoPartDecoder,
  type CallHomeInfo,
} from '../codecs/index.js';
import { ENGINE_SHUTDOWN, ENGINE_SHUTDOWN_MESSAGE } from './engine-shutdown.js';
import { errorDetailOf } from './error-detail.js';
import { dialSocket, type TcpTls } from './tcp-tls.js';

/** Opens the response connection and sends the handshake. */
export function dialCallHome(info: CallHomeInfo, onControl: (ctl: 'stop' | 'kill') => void, tls?: TcpTls): Promise<Socket> {
  const { host, port } = splitAddress(info.address);
  return new Promise((resolve, reject) => {
    const { socket, ready } = dialSocket(host, port, tls);
    socket.once('error', reject);
    socket.once(ready, () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      const decoder = new TwoPartDecoder();
      socket.on('data', (chunk: Buffer) => {
        for (const msg of decoder.push(chunk)) {
          const ctl = parseStreamControl(msg.header);
          if (ctl === 'stop' || ctl === 'kill') onControl(ctl);
        }
      });
      socket.write(encodeTwoPartHeader({ subject: info.subject, stream_type: 'response' }));
      resolve(socket);
    });
  });
}

/** Streams `items` to an open response connection and closes it. */
export async function sendResponseStream(
  socket: Socket,
  items: AsyncIterator<unknown>,
  first: IteratorResult<unknown> | Error,
  signal: AbortSignal,
  stringify: (value: unknown) => string = JSON.stringify,
): Promise<void> {
  if (first instanceof Error) {
    socket.write(encodeTwoPartHeader({ error: errorDetailOf(first) }));
    socket.end(encodeTwoPartHeader('sentinel'));
    return;
  }
  socket.write(encodeTwoPartHeader({ error: null }));
  let next: IteratorResult<unknown> = first;
  // Items produced in one event-loop turn leave in one write.
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  try {
    while (!next.done && !signal.aborted && !socket.destroyed) {
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(uncork);
      }
      const ok = socket.write(encodeTwoPart(null, streamItemJson(stringify(next.value))));
      if (!ok) await waitDrain(socket);
      next = await items.next();
    }
  } catch (err) {
    if (!shutDown(signal)) socket.write(encodeTwoPart(null, streamItemJson(errorItem(errorDetailOf(err as Error)))));
  } finally {
    if (!next.done) await items.return?.(undefined);
  }
  if (socket.destroyed) return;
  if (shutDown(signal)) socket.write(encodeTwoPart(null, streamItemJson(errorItem(ENGINE_SHUTDOWN_MESSAGE))));
  socket.write(encodeTwoPart(null, STREAM_END_JSON));
  socket.end(encodeTwoPartHeader('sentinel'));
}

/** The worker is shutting down: the request ends with the engine-shutdown error, whatever the engine did on abort. */
function shutDown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason === ENGINE_SHUTDOWN;
}

/** An Annotated error event. */
function errorItem(message: string): string {
  return JSON.stringify({ event: 'error', comment: [message], error: message });
}

function waitDrain(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/** `host:port` / `[v6]:port`, with an optional `tcp://`. */
export function splitAddress(address: string): { host: string; port: number } {
  const bare = address.replace(/^tcp:\/\//, '');
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(bare) ?? /^([^:]+):(\d+)$/.exec(bare);
  if (!m) throw new Error(`bad address ${JSON.stringify(address)}`);
  return { host: m[1]!, port: Number(m[2]) };
}
