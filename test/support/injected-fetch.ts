import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { FastifyInstance } from 'fastify';

/**
 * Two gaps of an injected exchange, closed once for fastify's own copy of light-my-request (found through one
 * request to it): its stand-in socket has no `setTimeout`, which the body-timeout guard arms on every request with a
 * body (no network, nothing to time out: a no-op); and its response is never chunked, so the SSE writer's framed
 * writes straight to the socket (covered by the tests on a real socket) give way to `res.write`, which it captures.
 */
const lightMyRequest = createRequire(createRequire(import.meta.url).resolve('fastify'))('light-my-request') as (
  dispatch: (req: { socket: object }, res: object) => void,
  options: { url: string },
) => Promise<unknown>;
await lightMyRequest(
  (req, res) => {
    const socket = Object.getPrototypeOf(req.socket) as { setTimeout?: () => unknown };
    socket.setTimeout ??= function setTimeout(this: unknown) {
      return this;
    };
    Object.defineProperty(Object.getPrototypeOf(res), 'chunkedEncoding', { get: () => false, set: () => undefined });
    (res as { end(): void }).end();
  },
  { url: '/' },
);

/** Statuses whose responses have no body: a web `Response` refuses one. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` that hands each request to `app.inject()`: the app's routes, hooks and serializers run as for a socket,
 * with no port. The body streams as the app writes it, so SSE can be read event by event. The URL's origin is ignored.
 */
export function injectedFetch(app: FastifyInstance): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const res = await app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(body ? { payload: body } : {}),
      payloadAsStream: true,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const one of [value ?? []].flat()) headers.append(name, String(one));
    }
    const stream = NULL_BODY.has(res.statusCode) ? null : (Readable.toWeb(res.stream()) as WebReadableStream<Uint8Array>);
    return new Response(stream as ReadableStream<Uint8Array> | null, { status: res.statusCode, statusText: res.statusMessage, headers });
  };
}

/** Fetches of the origins injectedOrigin handed out, so helpers given only a base URL reach the right app. */
const injected = new Map<string, typeof fetch>();
let origins = 0;

/** A base URL of its own for `app` and the fetch that injects into it; forgotten when the app closes. */
export function injectedOrigin(app: FastifyInstance): { baseUrl: string; fetch: typeof fetch } {
  const baseUrl = `http://injected-${++origins}.invalid`;
  const send = injectedFetch(app);
  injected.set(baseUrl, send);
  app.addHook('onClose', async () => void injected.delete(baseUrl));
  return { baseUrl, fetch: send };
}

/** The fetch that reaches `baseUrl`: the injecting one for an injectedOrigin, the global one otherwise. */
export function fetchFor(baseUrl: string): typeof fetch {
  return injected.get(baseUrl) ?? fetch;
}
