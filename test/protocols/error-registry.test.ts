// The error registry: every kind has its HTTP status, reason phrase and gRPC code, each class is
// built from it, and both frontends map every kind the way the table says.

import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';
import { test } from 'node:test';
import { toServiceError } from '../../src/frontends/grpc/status.js';
import { adminErrorReply, httpErrorReply, reasonPhrase, streamErrorJson } from '../../src/frontends/http/error-envelope.js';
import {
  BadGatewayError,
  CancelledError,
  ConflictError,
  DynamoError,
  ERROR_KINDS,
  ForbiddenError,
  GrpcStatus,
  InternalError,
  MethodNotAllowedError,
  NotFoundError,
  NotImplementedError,
  OverloadedError,
  PayloadTooLargeError,
  RequestTimeoutError,
  UnauthenticatedError,
  UnavailableError,
  UnprocessableError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ErrorKind,
} from '../../src/protocols/index.js';

const KINDS = Object.keys(ERROR_KINDS) as ErrorKind[];
const GRPC_CODES = new Set<number>(Object.values(GrpcStatus));
const silent = { error: () => undefined };
const call = { method: 'ModelInfer', requestId: () => 'req-1' };

/** One instance of every error class, with the kind it must carry. */
const CLASSES: [DynamoError, ErrorKind][] = [
  [new ValidationError('v'), 'validation'],
  [new UnauthenticatedError('u'), 'unauthenticated'],
  [new ForbiddenError('f'), 'forbidden'],
  [new NotFoundError('n'), 'not_found'],
  [new MethodNotAllowedError('m'), 'method_not_allowed'],
  [new RequestTimeoutError('r'), 'request_timeout'],
  [new PayloadTooLargeError('p'), 'payload_too_large'],
  [new UnsupportedMediaTypeError(), 'unsupported_media_type'],
  [new UnprocessableError('e'), 'unprocessable'],
  [new ConflictError('c'), 'conflict'],
  [new CancelledError(), 'cancelled'],
  [new InternalError(), 'internal'],
  [new NotImplementedError('i'), 'not_implemented'],
  [new BadGatewayError('g'), 'bad_gateway'],
  [new UnavailableError('a'), 'unavailable'],
  [new OverloadedError(), 'overload'],
];

test('every kind has an HTTP error status, a reason phrase and a gRPC code', () => {
  for (const kind of KINDS) {
    const { http, httpReason, grpc } = ERROR_KINDS[kind];
    assert.ok(http >= 400 && http < 600, `${kind}: HTTP ${http}`);
    assert.ok(httpReason.length > 0, `${kind}: reason`);
    assert.ok(GRPC_CODES.has(grpc), `${kind}: gRPC ${grpc}`);
    assert.ok(Number(grpc) !== GrpcStatus.OK, `${kind}: gRPC OK is no error`);
  }
});

test('the statuses of each kind', () => {
  const table = Object.fromEntries(KINDS.map((k) => [k, [ERROR_KINDS[k].http, ERROR_KINDS[k].grpc]]));
  assert.deepEqual(table, {
    validation: [400, GrpcStatus.INVALID_ARGUMENT],
    unauthenticated: [401, GrpcStatus.UNAUTHENTICATED],
    forbidden: [403, GrpcStatus.PERMISSION_DENIED],
    not_found: [404, GrpcStatus.NOT_FOUND],
    method_not_allowed: [405, GrpcStatus.UNIMPLEMENTED],
    request_timeout: [408, GrpcStatus.DEADLINE_EXCEEDED],
    payload_too_large: [413, GrpcStatus.RESOURCE_EXHAUSTED],
    unsupported_media_type: [415, GrpcStatus.INVALID_ARGUMENT],
    unprocessable: [422, GrpcStatus.INVALID_ARGUMENT],
    conflict: [409, GrpcStatus.ABORTED],
    cancelled: [499, GrpcStatus.CANCELLED],
    internal: [500, GrpcStatus.INTERNAL],
    not_implemented: [501, GrpcStatus.UNIMPLEMENTED],
    bad_gateway: [502, GrpcStatus.UNAVAILABLE],
    unavailable: [503, GrpcStatus.UNAVAILABLE],
    overload: [529, GrpcStatus.UNAVAILABLE],
  });
});

test('reason phrases are the standard ones, plus 499 and 529', () => {
  for (const kind of KINDS) {
    const { http, httpReason } = ERROR_KINDS[kind];
    const expected = { 499: 'Client Closed Request', 529: 'Overloaded' }[http as 499 | 529] ?? STATUS_CODES[http];
    assert.equal(httpReason, expected, kind);
    assert.equal(reasonPhrase(http), expected, kind);
  }
  assert.equal(reasonPhrase(429), 'Too Many Requests');
  assert.equal(reasonPhrase(599), 'UnknownError');
});

test('every class carries its kind and takes its statuses from the registry', () => {
  assert.deepEqual(new Set(CLASSES.map(([, kind]) => kind)), new Set(KINDS), 'one class per kind');
  for (const [err, kind] of CLASSES) {
    assert.equal(err.kind, kind);
    assert.equal(err.httpStatus, ERROR_KINDS[kind].http, kind);
    assert.equal(err.grpcStatus, ERROR_KINDS[kind].grpc, kind);
    assert.ok(err instanceof DynamoError);
  }
});

test('HTTP maps each kind to its status and reason, overload to the configured status', () => {
  for (const kind of KINDS) {
    const reply = httpErrorReply(new DynamoError(kind, `a ${kind} error`), 503);
    const status = kind === 'overload' ? 503 : ERROR_KINDS[kind].http;
    assert.equal(reply.status, status, kind);
    assert.equal(reply.kind, kind);
    assert.deepEqual(reply.body.error, { message: `a ${kind} error`, type: reasonPhrase(status), code: status });
    assert.deepEqual(adminErrorReply(new DynamoError(kind, 'x')), { status: ERROR_KINDS[kind].http, body: { error: 'x' } });
  }
  assert.equal(httpErrorReply(new OverloadedError(), 529).body.type, 'Overloaded');
});

test('HTTP hides the text of unknown errors', () => {
  const reply = httpErrorReply(new Error('/etc/secret went wrong'), 529);
  assert.equal(reply.status, 500);
  assert.equal(reply.kind, 'internal');
  assert.deepEqual(reply.body.error, { message: 'Internal server error', type: 'Internal Server Error', code: 500 });
  assert.deepEqual(adminErrorReply(new Error('/etc/secret')), { status: 500, body: { error: 'Internal server error' } });
  assert.equal(streamErrorJson(new Error('/etc/secret')), '{"error":{"message":"Internal server error","type":"internal_server_error","code":500}}');
  // A framework's own 4xx error describes the client's mistake and keeps its text on the admin routes.
  assert.deepEqual(adminErrorReply(Object.assign(new Error('Body is empty'), { statusCode: 400 })), { status: 400, body: { error: 'Body is empty' } });
});

test('gRPC maps each kind to its code with its text', () => {
  for (const kind of KINDS) {
    assert.deepEqual(toServiceError(new DynamoError(kind, `a ${kind} error`), call, silent), {
      code: ERROR_KINDS[kind].grpc,
      details: `a ${kind} error`,
    });
  }
});

test('gRPC answers an unknown error INTERNAL with a generic text and logs it with the request id', () => {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  const log = { error: (obj: object, msg: string) => lines.push({ obj: obj as Record<string, unknown>, msg }) };
  const err = new TypeError('cannot read /etc/secret');
  assert.deepEqual(toServiceError(err, call, log), { code: GrpcStatus.INTERNAL, details: 'Internal server error' });
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.obj.err, err);
  assert.equal(lines[0]!.obj.request_id, 'req-1');
  assert.equal(lines[0]!.obj.method, 'ModelInfer');
  // Typed errors are the caller's business and are not logged.
  toServiceError(new InternalError('Failed to generate completions: boom'), call, log);
  assert.equal(lines.length, 1);
});
