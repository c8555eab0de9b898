// How the primary hands accepted connections to the pool's processes: round robin over the processes
// serving that listener, preferring one that has taken its previous connection (a process with a
// blocked event loop gets fewer), the socket sent over the process's IPC channel.
//
// What node:cluster's round robin gets wrong and this does not: a connection sent to a process that
// dies before taking it. The socket is sent with `keepOpen`, so the primary's copy stays ours: once
// the send is written it is closed (the descriptor in flight belongs to the process, and goes with
// it: the client sees the connection end at once); a send never written (the process died first,
// Node queues one handle at a time per channel) goes to another process instead. node:cluster
// keeps its copy until the process acknowledges, and a process that died first never does: the
// client waited for its own timeout.
import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { ListenerName, ToProcess } from './messages.js';

interface Taker {
  readonly child: ChildProcess;
  readonly listeners: ReadonlySet<ListenerName>;
  /** Sockets sent to it whose send has not been written yet, with their listener. */
  readonly sending: Map<Socket, ListenerName>;
}

export class ConnectionDispatch {
  private readonly takers: Taker[] = [];
  private next = 0;

  /** `unserved` is told of a connection closed because no process serves its listener. */
  constructor(private readonly unserved: (listener: ListenerName) => void) {}

  /** `child` takes connections of `listeners` from now on. */
  add(child: ChildProcess, listeners: Iterable<ListenerName>): void {
    this.takers.push({ child, listeners: new Set(listeners), sending: new Map() });
  }

  /** `child` takes no more connections; those sent to it but not written go to the others. */
  remove(child: ChildProcess): void {
    const at = this.takers.findIndex((t) => t.child === child);
    if (at < 0) return;
    const { sending } = this.takers.splice(at, 1)[0]!;
    const unsent = [...sending];
    sending.clear();
    for (const [socket, listener] of unsent) this.dispatch(listener, socket);
  }

  /** Hands `socket`, accepted on `listener`, to a process; with none serving it, resets it at once. */
  dispatch(listener: ListenerName, socket: Socket): void {
    const taker = this.choose(listener);
    if (!taker) {
      // A reset, not a close: a client (undici's fetch) whose fresh connection closes before its
      // request is read can wait for its own timeout.
      socket.resetAndDestroy();
      this.unserved(listener);
      return;
    }
    taker.sending.set(socket, listener);
    const msg: ToProcess = { kind: 'pool:connection', listener };
    taker.child.send(msg, socket, { keepOpen: true }, (err) => {
      // Already handed elsewhere by remove().
      if (!taker.sending.delete(socket)) return;
      if (err) this.dispatch(listener, socket);
      // Only the primary's copy: the connection lives on in the process.
      else socket.destroy();
    });
  }

  /** Round robin from the last one chosen: the first free of sends in flight, else the least busy. */
  private choose(listener: ListenerName): Taker | undefined {
    const n = this.takers.length;
    let best: Taker | undefined;
    for (let i = 0; i < n; i++) {
      const at = (this.next + i) % n;
      const taker = this.takers[at]!;
      if (!taker.listeners.has(listener) || !taker.child.connected) continue;
      if (!best || taker.sending.size < best.sending.size) {
        best = taker;
        this.next = at + 1;
      }
      if (taker.sending.size === 0) break;
    }
    return best;
  }
}
