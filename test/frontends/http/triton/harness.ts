// A KServe frontend whose side HTTP server carries Triton's /v2 routes over the same core as its
// gRPC service, and raw-HTTP helpers for them (node fetch, as curl scripts call them).

import { startHarness, type Harness } from '../../grpc/harness.js';
import type { ServedModel } from '../../../../src/models/index.js';
import type { TensorModel } from '../../../../src/protocols/index.js';

export interface TritonHarness extends Harness {
  /** `http://127.0.0.1:<port>/v2`. */
  base: string;
}

export async function startTriton(opts: { completions?: ServedModel[]; tensors?: TensorModel[] }): Promise<TritonHarness> {
  const h = await startHarness({ ...opts, metricsPort: 0 });
  return { ...h, base: `http://127.0.0.1:${h.frontend.metricsPort}/v2` };
}

export interface JsonReply {
  status: number;
  body: any;
  headers: Headers;
}

export async function getJson(url: string, init: RequestInit = {}): Promise<JsonReply> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonReply> {
  return getJson(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A binary-data request: the JSON part, then the tensors' bytes. */
export async function postBinary(url: string, json: unknown, binary: Buffer[]): Promise<{ status: number; headers: Headers; json: any; binary: Buffer }> {
  const header = Buffer.from(JSON.stringify(json));
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
    body: Buffer.concat([header, ...binary]),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const length = Number(res.headers.get('inference-header-content-length') ?? bytes.byteLength);
  return { status: res.status, headers: res.headers, json: JSON.parse(bytes.subarray(0, length).toString()), binary: bytes.subarray(length) };
}

/** The `data:` payloads of a server-sent event stream. */
export async function sseEvents(url: string, body: unknown): Promise<{ status: number; contentType: string | null; events: any[] }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  const events = text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice('data: '.length)));
  return { status: res.status, contentType: res.headers.get('content-type'), events };
}
