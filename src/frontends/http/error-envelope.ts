// The one place an error becomes an HTTP reply: statuses and reason phrases come from the error
// registry; unknown errors never leak their text.
import { STATUS_CODES } from 'node:http';
import { ERROR_KINDS, INTERNAL_ERROR_MESSAGE, isDynamoError, type ErrorKind } from '../../protocols/index.js';

const REASON_BY_STATUS = new Map<number, string>(Object.values(ERROR_KINDS).map((s) => [s.http, s.httpReason]));

/** The canonical reason phrase used as the `type` of an error body. */
export function reasonPhrase(status: number): string {
  return REASON_BY_STATUS.get(status) ?? STATUS_CODES[status] ?? 'UnknownError';
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

/** How a family of routes shapes an error reply (OpenAI's flat body, Anthropic's envelope). */
export type ErrorEnvelope = (err: unknown, overloadStatus: number) => { status: number; body: unknown };

/**
 * Upstream's flat `{message, type, code}` body, with the same fields repeated under `error`: the
 * OpenAI SDKs read their message from `error.message` and would otherwise report "(no body)".
 */
function errorBody(fields: ErrorFields): HttpErrorReply['body'] {
  return { ...fields, error: fields };
}

/** The OpenAI-style routes' reply: a flat `{message, type, code}` object. */
export function httpErrorReply(err: unknown, overloadStatus: number): HttpErrorReply {
  if (!isDynamoError(err)) {
    const status = ERROR_KINDS.internal.http;
    return { status, kind: 'internal', body: errorBody({ message: INTERNAL_ERROR_MESSAGE, type: reasonPhrase(status), code: status }) };
  }
  const status = err.kind === 'overload' ? overloadStatus : err.httpStatus;
  const fields: ErrorFields = { message: err.message, type: reasonPhrase(status), code: status };
  if (err.details) fields.details = err.details;
  return { status, kind: err.kind, body: errorBody(fields) };
}

/**
 * The admin routes' reply: `{"error": "..."}`. Framework errors with a 4xx status describe the
 * client's mistake and keep their text; any other unknown error reads "Internal server error".
 */
export function adminErrorReply(err: unknown): { status: number; body: { error: string } } {
  if (isDynamoError(err)) return { status: err.httpStatus, body: { error: err.message } };
  const { statusCode, message } = err as { statusCode?: unknown; message?: unknown };
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 && typeof message === 'string') {
    return { status: statusCode, body: { error: message } };
  }
  return { status: ERROR_KINDS.internal.http, body: { error: INTERNAL_ERROR_MESSAGE } };
}

const STREAM_INTERNAL_ERROR = JSON.stringify({
  error: { message: INTERNAL_ERROR_MESSAGE, type: 'internal_server_error', code: ERROR_KINDS.internal.http },
});

/**
 * An error after the SSE stream has started: it travels as a `data:` line with an `error` wrapper.
 * Request errors keep their message; so does a lost worker (unavailable: the request could not be
 * moved on), which the client may retry; everything else reads "Internal server error".
 */
export function streamErrorJson(err: unknown): string {
  if (isDynamoError(err) && err.httpStatus >= 400 && err.httpStatus < 500 && err.kind !== 'cancelled') {
    return JSON.stringify({ error: { message: err.message, type: 'invalid_request_error', code: err.httpStatus } });
  }
  if (isDynamoError(err) && err.kind === 'unavailable') {
    return JSON.stringify({ error: { message: err.message, type: reasonPhrase(err.httpStatus), code: err.httpStatus } });
  }
  return STREAM_INTERNAL_ERROR;
}

/** Anthropic's error `type` by error kind (reference/http.md §1.2, §9.2). */
const ANTHROPIC_ERROR_TYPES: Readonly<Record<ErrorKind, string>> = {
  validation: 'invalid_request_error',
  unauthenticated: 'authentication_error',
  forbidden: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  request_timeout: 'invalid_request_error',
  payload_too_large: 'request_too_large',
  unsupported_media_type: 'invalid_request_error',
  unprocessable: 'invalid_request_error',
  conflict: 'invalid_request_error',
  cancelled: 'api_error',
  internal: 'api_error',
  not_implemented: 'api_error',
  bad_gateway: 'api_error',
  unavailable: 'overloaded_error',
  overload: 'overloaded_error',
};

function anthropicError(kind: ErrorKind, message: string): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type: ANTHROPIC_ERROR_TYPES[kind], message } };
}

/** The Anthropic routes' reply: `{"type":"error","error":{"type","message"}}`, with the statuses of the OpenAI routes. */
export const anthropicErrorReply: ErrorEnvelope = (err, overloadStatus) => {
  const { status, kind, body } = httpErrorReply(err, overloadStatus);
  return { status, body: anthropicError(kind, body.message) };
};

/**
 * An error after an Anthropic stream has started (the data of an `event: error`). Request errors
 * and overload keep their message; everything else reads "Internal server error".
 */
export function anthropicStreamErrorJson(err: unknown): string {
  if (!isDynamoError(err)) return JSON.stringify(anthropicError('internal', INTERNAL_ERROR_MESSAGE));
  const safe = (err.httpStatus < 500 && err.kind !== 'cancelled') || err.kind === 'overload' || err.kind === 'unavailable';
  return JSON.stringify(safe ? anthropicError(err.kind, err.message) : anthropicError('internal', INTERNAL_ERROR_MESSAGE));
}
