import * as grpc from '@grpc/grpc-js';
import { traceIdOf } from '../../observability/index.js';
import { ERROR_KINDS, INTERNAL_ERROR_MESSAGE, isDynamoError } from '../../protocols/index.js';

/** Where unexpected errors are recorded, since their text never reaches the client. */
export interface FailureLog {
  error(obj: object, msg: string): void;
}

/** Which call failed: the RPC method, a lazily computed request id and the W3C `traceparent` sent. */
export interface FailedCall {
  method: string;
  requestId(): string;
  traceparent?: string;
}

/**
 * The one place errors become gRPC statuses. A DynamoError keeps its own code and text; anything
 * else is unexpected: INTERNAL with a generic text, the real error logged with the request id.
 */
export function toServiceError(err: unknown, call: FailedCall, log: FailureLog): Partial<grpc.StatusObject> {
  if (isDynamoError(err)) return { code: err.grpcStatus, details: err.message };
  const traceId = traceIdOf(call.traceparent);
  log.error({ err, request_id: call.requestId(), ...(traceId && { trace_id: traceId }), method: call.method }, 'gRPC request failed');
  return { code: ERROR_KINDS.internal.grpc, details: INTERNAL_ERROR_MESSAGE };
}

export const STATUS_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(grpc.status).filter(([, v]) => typeof v === 'number').map(([k, v]) => [v as number, k]),
);
