// Request ids on the gRPC side: the one a failed call is logged with, and the call's trace context.

import { randomUUID } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { traceContextOf } from '../../observability/index.js';
import type { TraceHeaders } from '../../protocols/index.js';

/** `x-request-id` metadata, else the request message's `id`, else a fresh UUID. */
export function callRequestId(metadata: grpc.Metadata, request?: unknown): string {
  const header = metadata.get('x-request-id')[0];
  if (typeof header === 'string' && header.length > 0) return header;
  const id = (request as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' && id.length > 0 ? id : randomUUID();
}

/** The call's W3C trace context metadata (`traceparent`, `tracestate`), when valid. */
export function traceContextOfMetadata(metadata: grpc.Metadata): TraceHeaders | undefined {
  return traceContextOf(metadata.get('traceparent')[0], metadata.get('tracestate')[0]);
}

/** The call's W3C `traceparent` metadata, if any (its trace id goes on the call's log lines). */
export function traceparentOf(metadata: grpc.Metadata): string | undefined {
  const value = metadata.get('traceparent')[0];
  return typeof value === 'string' ? value : undefined;
}
