// The worker half shared by the TCP and NATS request planes: look up the handler a request names,
// decode the two-part payload and start the handler, ack, then dial the caller back (or take a kept
// connection) and stream the response.
import { callController, callEnded } from '../../protocols/index.js';
import { PAYLOAD_CODECS, PING_HEADER, decodeTwoPart, parseRequestControl, stringifyJsonWithU64 } from '../codecs/index.js';
import { CallHomeLinks, type CallHomeLink } from './call-home-link.js';
import { sendResponseStream } from './call-home-sender.js';
import { ENGINE_SHUTDOWN } from './engine-shutdown.js';
import type { TcpTls } from './tcp-tls.js';
import type { EndpointHandler } from './types.js';

export interface IngressLogger {
  warn(obj: object, msg: string): void;
}

/** How long a closing worker lets running requests finish unless told (upstream's DYN_GRACEFUL_SHUTDOWN_GRACE_PERIOD_SECS default). */
export const DRAIN_GRACE_MS = 5000;

export class Ingress {
  private readonly handlers = new Map<string, EndpointHandler>();
  private readonly inFlight = new Set<AbortController>();
  private closed = false;
  private readonly links: CallHomeLinks;

  constructor(
    private readonly logger?: IngressLogger,
    /** TLS for dialing callers back (--tcp-tls-*). */
    tls?: TcpTls,
  ) {
    this.links = new CallHomeLinks(tls);
  }

  /** `path` is `{instance_id:x}/{endpoint}`. */
  add(path: string, handler: EndpointHandler): void {
    this.handlers.set(path, handler);
  }

  remove(path: string): void {
    this.handlers.delete(path);
  }

  /**
   * Returns the ack text ('' = accepted) and, when accepted, starts answering. Older callers name
   * the bare endpoint; that works when this process serves it for a single instance. A ping is
   * answered by its ack alone.
   */
  accept(path: string, headers: Record<string, string>, payload: Buffer): string {
    if (this.closed) return 'Server unavailable: shutting down';
    if (headers[PING_HEADER] !== undefined) return '';
    const handler = this.handlers.get(path) ?? this.byBareEndpoint(path);
    if (!handler) return `Server unavailable: no endpoint ${path} here`;
    void this.respond(handler, headers, payload).catch((err: Error) =>
      this.logger?.warn({ path, err: err.message }, 'request-plane: cannot answer request'),
    );
    return '';
  }

  /** Rejects new requests, lets running ones finish for up to `graceMs`, then ends the rest as an engine shutdown. */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    const deadline = Date.now() + graceMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (this.inFlight.size > 0) {
      this.logger?.warn({ requests: this.inFlight.size, graceSecs: graceMs / 1000 }, 'request-plane: shutdown grace period over; ending the requests still running as an engine shutdown (frontends may migrate them)');
    }
    for (const ctl of this.inFlight) ctl.abort(ENGINE_SHUTDOWN);
    this.links.close();
  }

  private byBareEndpoint(path: string): EndpointHandler | undefined {
    if (path.includes('/')) return undefined;
    const matches = [...this.handlers.entries()].filter(([p]) => p.endsWith(`/${path}`));
    return matches.length === 1 ? matches[0]![1] : undefined;
  }

  private async respond(handler: EndpointHandler, headers: Record<string, string>, payload: Buffer): Promise<void> {
    const msg = decodeTwoPart(payload);
    const control = parseRequestControl(msg.header);
    const exact = handler.exactIntegers === true;
    const request = PAYLOAD_CODECS[control.codec].decode(msg.body, exact);
    const abort = callController();
    this.inFlight.add(abort);
    const caller = new CallerStop(abort);
    let answered = false;
    try {
      const requestId = headers['request-id'] ?? headers['x-request-id'] ?? control.id;
      const items = handler(request, { requestId, signal: abort.signal, headers, metadata: control.metadata })[Symbol.asyncIterator]();
      // The engine starts before the response connection is ready, so the ack and the handshake go
      // out during its work rather than ahead of it. The first item decides between a clean
      // prologue and an error prologue.
      const first = firstItem(items);
      let link: CallHomeLink;
      try {
        link = await this.links.open(control.callHome);
      } catch (err) {
        // Nobody can hear the answer: the engine stops.
        abort.abort();
        items.return?.()?.catch(ignore);
        throw err;
      }
      link.begin(control.callHome, caller);
      const started = await first;
      await sendResponseStream(link, items, started, abort.signal, exact ? stringifyJsonWithU64 : JSON.stringify);
      answered = !(started instanceof Error);
    } finally {
      this.inFlight.delete(abort);
      // A link whose socket was destroyed keeps its listener until the close: it must abort nothing now.
      caller.controller = null;
      if (answered) callEnded(abort);
    }
  }
}

/** The stream's first item, or what the stream failed with instead. */
function firstItem(items: AsyncIterator<unknown>): Promise<IteratorResult<unknown> | Error> {
  try {
    return items.next().then(undefined, asError);
  } catch (err) {
    return Promise.resolve(asError(err));
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

const ignore = (): void => undefined;

/** The caller's stop, or its connection lost, aborts the request; one object per request rather than closures. */
class CallerStop {
  constructor(public controller: AbortController | null) {}

  control(): void {
    this.controller?.abort();
  }

  lost(): void {
    this.controller?.abort();
  }
}
