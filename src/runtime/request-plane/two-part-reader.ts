// A socket's incoming two-part messages, handed on in order as its chunks arrive. A malformed frame
// closes the socket: nothing after it can be framed again.
import type { Socket } from 'node:net';
import type { TwoPartDecoder, TwoPartMessage } from '../codecs/index.js';

/** `onMessage` returns false to drop the rest of the chunk (it closed the socket). */
export function readTwoPartMessages(socket: Socket, decoder: TwoPartDecoder, onMessage: (msg: TwoPartMessage) => boolean | void): void {
  socket.on('data', (chunk: Buffer) => {
    let messages: TwoPartMessage[];
    try {
      messages = decoder.push(chunk);
    } catch {
      socket.destroy();
      return;
    }
    for (const msg of messages) if (onMessage(msg) === false) return;
  });
}
