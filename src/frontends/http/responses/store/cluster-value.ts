// How the cluster stores (etcd, nats) write a response: when it was stored (8 bytes, a float64 of
// ms), then its JSON gzipped. The services cap a value (an etcd request 1.5 MiB, a NATS message
// 1 MiB by default) and a response keeps every event of its answer; the events repeat each other,
// so they compress well. The stored time lets a reader treat an entry past the TTL as gone before
// the service removes it (a lease or the bucket's max age acts a little later), without unpacking it.

import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { ResponseStoreSettings, StoredResponse } from './response-store.js';

const gzipped = promisify(gzip);
const gunzipped = promisify(gunzip);

export async function packResponse(stored: StoredResponse, storedAt: number): Promise<Buffer> {
  const time = Buffer.alloc(8);
  time.writeDoubleBE(storedAt);
  return Buffer.concat([time, await gzipped(JSON.stringify(stored))]);
}

/** Whether a packed response is within the TTL at `now`. */
export function isFresh(value: Uint8Array, settings: ResponseStoreSettings, now: number): boolean {
  const storedAt = Buffer.from(value.buffer, value.byteOffset, value.byteLength).readDoubleBE(0);
  return storedAt + settings.ttlSecs * 1000 > now;
}

/** The packed response, or undefined once it is past the TTL. */
export async function unpackFresh(value: Uint8Array, settings: ResponseStoreSettings, now: number): Promise<StoredResponse | undefined> {
  if (!isFresh(value, settings, now)) return undefined;
  return JSON.parse((await gunzipped(value.subarray(8))).toString('utf8')) as StoredResponse;
}
