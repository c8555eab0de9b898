import type { EndpointId, EndpointInstance, Transport } from '../discovery/index.js';

export interface RequestContext {
  requestId: string;
  /** Aborted when the caller stops or kills the stream, or goes away. */
  signal: AbortSignal;
  /** Frame headers (traceparent, request-id, ...). */
  headers: Readonly<Record<string, string>>;
  /** The caller's request metadata (the control message's `metadata` map), when it sent any. */
  metadata?: Readonly<Record<string, string>>;
}

/**
 * Serves one endpoint: takes the decoded request body and yields response items. For LLM endpoints
 * an item is an upstream Annotated envelope, `{data: LLMEngineOutput}`. A handler marked
 * `exactIntegers` (tensor endpoints: Int64/Uint64 data) gets integers beyond 2^53 as bigint and may
 * yield bigints; the others keep plain `JSON.parse`/`JSON.stringify` on the hot path.
 */
export type EndpointHandler = ((request: unknown, ctx: RequestContext) => AsyncIterable<unknown>) & { readonly exactIntegers?: boolean };

/** Worker side: makes handlers reachable and says how (the transport published in discovery). */
export interface RequestPlaneServer {
  readonly kind: string;
  serve(endpoint: EndpointId, instanceId: bigint, handler: EndpointHandler): Promise<Transport>;
  /** Stops routing to one instance's endpoint: later requests are rejected. */
  unserve(endpoint: EndpointId, instanceId: bigint): void;
  close(): Promise<void>;
}

export interface CallContext {
  requestId: string;
  signal: AbortSignal;
  headers?: Record<string, string>;
  /** Client request metadata for the worker (GenerateContext.metadata); sent in the control message. */
  metadata?: Readonly<Record<string, string>>;
  /** The request may hold bigints, and response integers beyond 2^53 must come back exact. */
  exactIntegers?: boolean;
}

/** Frontend side: sends a request to one discovered instance and streams back its items. */
export interface RequestPlaneClient {
  stream(target: EndpointInstance, request: unknown, ctx: CallContext): AsyncIterable<unknown>;
  /** True when the instance's process answers a ping over its transport within `timeoutMs` (default 2 s). */
  probe(target: EndpointInstance, timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** `{instance_id:x}/{endpoint}`: the path a request frame names. */
export function instancePath(endpoint: string, instanceId: bigint): string {
  return `${instanceId.toString(16)}/${endpoint}`;
}
