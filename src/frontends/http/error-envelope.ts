import { STATUS_CODES } from 'node:http';
import { isDynamoError, type DynamoError, type ErrorKind } from '../../protocols/index.js';

/** The canonical reason phrase used as the `type` of an error body. */
export function reasonPhrase(status: number): string {
  if (status === 529) return 'Overloaded';
  if (status === 499) return 'Client Closed Request';
  return STATUS_CODES[status] ?? 'UnknownError';
}

interface ErrorFields {
  message: string;
  type: string;
  code: number;
  details?: Record<string, unknown>;
}

export interface HttpErrorReply {
  status: number;
  kind: ErrorKind;
  body: ErrorFields & { error: ErrorFields };
}

/**
 * Upstream's flat `{message, type, code}` body, with the same fields repeated under `error`: the
 * OpenAI SDKs read their message from `error.message` and would otherwise report "(no body)".
 */
function errorBody(fields: ErrorFields): HttpErrorReply['body'] {
  return { ...fields, error: fields };
}

/**
 * The one place an error becomes an HTTP reply for the OpenAI-style routes: a flat
 * `{message, type, code}` object. Unknown errors never leak their text.
 */
export function httpErrorReply(err: unknown, overloadStatus: number): HttpErrorReply {
  if (!isDynamoError(err)) {
    return { status: 500, kind: 'internal', body: errorBody({ message: 'Internal server error', type: reasonPhrase(500), code: 500 }) };
  }
  const status = err.kind === 'overload' ? overloadStatus : err.httpStatus;
  const fields: ErrorFields = { message: err.message, type: reasonPhrase(status), code: status };
  if (err.details) fields.details = err.details;
  return { status, kind: err.kind, body: errorBody(fields) };
}

/**
 * An error after the SSE stream has started: it travels as a `data:` line with an `error` wrapper.
 * Only request errors keep their message; everything else reads "Internal server error".
 */
export function streamErrorJson(err: unknown): string {
  const e = err as DynamoError;
  if (isDynamoError(err) && e.httpStatus >= 400 && e.httpStatus < 500 && e.kind !== 'cancelled') {
    return JSON.stringify({ error: { message: e.message, type: 'invalid_request_error', code: e.httpStatus } });
  }
  return '{"error":{"message":"Internal server error","type":"internal_server_error","code":500}}';
}
