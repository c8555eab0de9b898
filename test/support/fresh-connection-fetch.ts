// A fetch that opens a new TCP connection per request (node:http, no agent), for clients such as
// the openai SDK: a pool of frontend processes hands out connections, not requests.
import { request } from 'node:http';
import { Readable } from 'node:stream';

export const freshConnectionFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  const body = init?.body === undefined || init.body === null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init?.method ?? 'GET', headers: Object.fromEntries(headers), agent: false }, (res) => {
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
      resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status: res.statusCode, headers: out }));
    });
    req.on('error', reject);
    init?.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
    req.end(body);
  });
};
