// Worker side: the connection a response stream goes back to its caller on. Upstream's tcp_server
// transport dials one per stream and closes it after the sentinel; a dynamo-ts caller offers
// `keep_alive` in the call-home info, and then the connection outlives its stream: its handshake
// says `keep_alive`, the caller answers the sentinel with a header-only "release" once the stream is
// over on its side, and the connection waits here for the next stream to the same address. Frames
// stay those of tcp_server; only the connection's life changes, and only when both ends asked for it.
// A "stop" or "kill" read before the release belongs to the stream that just ended and is dropped.
import type { Socket } from 'node:net';
import { encodeTwoPartHeader, parseStreamControl, TwoPartDecoder, type CallHomeInfo } from '../codecs/index.js';
import { dialSocket, type TcpTls } from './tcp-tls.js';
import { readTwoPartMessages } from './two-part-reader.js';

/** Idle kept connections per caller address; a burst beyond it closes its extra connections. */
const MAX_IDLE_PER_ADDRESS = 256;
/** An idle kept connection is closed after this long unused. */
const IDLE_TIMEOUT_MS = 60_000;

/** What the stream on a link hears of its caller. */
interface LinkListener {
  control(ctl: 'stop' | 'kill'): void;
  /** The connection closed under the stream. */
  lost(): void;
}

export class CallHomeLink {
  private listener: LinkListener | null = null;
  private closed = false;

  constructor(
    readonly socket: Socket,
    /** Both ends agreed to keep the connection after the stream. */
    readonly kept: boolean,
    private readonly onRelease: (link: CallHomeLink) => void,
    private readonly onClosed: (link: CallHomeLink) => void,
  ) {
    socket.on('error', () => undefined);
    readTwoPartMessages(socket, new TwoPartDecoder(), (msg) => {
      const ctl = parseStreamControl(msg.header);
      if (ctl === 'stop' || ctl === 'kill') this.listener?.control(ctl);
      else if (ctl === 'release' && this.kept && this.listener === null) this.onRelease(this);
    });
    // Armed only while the connection waits idle (CallHomeLinks.park).
    socket.on('timeout', () => socket.end());
    socket.on('close', () => {
      this.closed = true;
      this.onClosed(this);
      this.listener?.lost();
    });
  }

  get isOpen(): boolean {
    return !this.closed && !this.socket.destroyed;
  }

  /** Starts a stream on the link: its handshake goes out, then the stream's frames. */
  begin(info: CallHomeInfo, listener: LinkListener): void {
    this.listener = listener;
    const handshake: Record<string, unknown> = { subject: info.subject, stream_type: 'response' };
    if (this.kept) handshake.keep_alive = true;
    this.socket.write(encodeTwoPartHeader(handshake));
  }

  /** The stream's last frames: the connection closes after them, or waits for the caller's release when kept. */
  finish(frames: Buffer): void {
    this.listener = null;
    if (this.socket.destroyed) return;
    if (this.kept) this.socket.write(frames);
    else this.socket.end(frames);
  }
}

/** The process's response connections by caller address: kept ones wait here between streams. */
export class CallHomeLinks {
  private readonly idle = new Map<string, CallHomeLink[]>();
  private closed = false;

  constructor(private readonly tls?: TcpTls) {}

  /** A connection to the caller named in `info`: an idle kept one when it offers keep-alive and one waits, else dialed. */
  async open(info: CallHomeInfo): Promise<CallHomeLink> {
    const kept = info.keep_alive === true;
    if (kept) {
      const waiting = this.idle.get(info.address);
      for (let link = waiting?.pop(); link; link = waiting?.pop()) {
        if (!link.isOpen) continue;
        link.socket.setTimeout(0);
        return link;
      }
    }
    const socket = await dial(info.address, this.tls);
    return new CallHomeLink(
      socket,
      kept,
      (link) => this.park(info.address, link),
      (link) => this.forget(info.address, link),
    );
  }

  /** Closes every idle connection, and each busy one once its stream is over (the worker stops). */
  close(): void {
    this.closed = true;
    for (const links of this.idle.values()) for (const link of links) link.socket.destroy();
    this.idle.clear();
  }

  private park(address: string, link: CallHomeLink): void {
    const links = this.idle.get(address) ?? [];
    if (this.closed || links.length >= MAX_IDLE_PER_ADDRESS) {
      link.socket.end();
      return;
    }
    link.socket.setTimeout(IDLE_TIMEOUT_MS);
    links.push(link);
    this.idle.set(address, links);
  }

  private forget(address: string, link: CallHomeLink): void {
    const links = this.idle.get(address);
    const at = links?.indexOf(link) ?? -1;
    if (at >= 0) links!.splice(at, 1);
    if (links?.length === 0) this.idle.delete(address);
  }
}

function dial(address: string, tls: TcpTls | undefined): Promise<Socket> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve, reject) => {
    const { socket, ready } = dialSocket(host, port, tls);
    socket.once('error', reject);
    socket.once(ready, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/** `host:port` / `[v6]:port`, with an optional `tcp://`. */
export function splitAddress(address: string): { host: string; port: number } {
  const bare = address.replace(/^tcp:\/\//, '');
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(bare) ?? /^([^:]+):(\d+)$/.exec(bare);
  if (!m) throw new Error(`bad address ${JSON.stringify(address)}`);
  return { host: m[1]!, port: Number(m[2]) };
}
