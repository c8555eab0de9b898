// One error hierarchy for the whole product, driven by one table: every error kind with its HTTP
// status, reason phrase and gRPC status code. Frontends map errors once and never format error
// bodies by hand.

/** gRPC status codes (the numbers are fixed by the gRPC spec). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** How one error kind reads on each wire. */
export interface ErrorStatuses {
  readonly http: number;
  /** The `type` of an HTTP error body; 499 and 529 have no standard phrase. */
  readonly httpReason: string;
  readonly grpc: number;
}

/** The registry. A kind's name is the `error_type` label of request metrics and the stable machine-readable code. */
export const ERROR_KINDS = {
  validation: { http: 400, httpReason: 'Bad Request', grpc: GrpcStatus.INVALID_ARGUMENT },
  unauthenticated: { http: 401, httpReason: 'Unauthorized', grpc: GrpcStatus.UNAUTHENTICATED },
  /** A route this deployment does not open to anyone (admin routes with no key configured). */
  forbidden: { http: 403, httpReason: 'Forbidden', grpc: GrpcStatus.PERMISSION_DENIED },
  not_found: { http: 404, httpReason: 'Not Found', grpc: GrpcStatus.NOT_FOUND },
  method_not_allowed: { http: 405, httpReason: 'Method Not Allowed', grpc: GrpcStatus.UNIMPLEMENTED },
  /** The client sent its request body too slowly (body or upload timeout). */
  request_timeout: { http: 408, httpReason: 'Request Timeout', grpc: GrpcStatus.DEADLINE_EXCEEDED },
  payload_too_large: { http: 413, httpReason: 'Payload Too Large', grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  unsupported_media_type: { http: 415, httpReason: 'Unsupported Media Type', grpc: GrpcStatus.INVALID_ARGUMENT },
  /** JSON that is well-formed but not the expected shape (admin routes). */
  unprocessable: { http: 422, httpReason: 'Unprocessable Entity', grpc: GrpcStatus.INVALID_ARGUMENT },
  /** The state the request relied on changed under it (an RL fan-out whose workers came or went). */
  conflict: { http: 409, httpReason: 'Conflict', grpc: GrpcStatus.ABORTED },
  cancelled: { http: 499, httpReason: 'Client Closed Request', grpc: GrpcStatus.CANCELLED },
  internal: { http: 500, httpReason: 'Internal Server Error', grpc: GrpcStatus.INTERNAL },
  not_implemented: { http: 501, httpReason: 'Not Implemented', grpc: GrpcStatus.UNIMPLEMENTED },
  /** The workers a request was fanned out to failed it (an RL admin op a worker refused). */
  bad_gateway: { http: 502, httpReason: 'Bad Gateway', grpc: GrpcStatus.UNAVAILABLE },
  unavailable: { http: 503, httpReason: 'Service Unavailable', grpc: GrpcStatus.UNAVAILABLE },
  /** 529 unless DYN_HTTP_OVERLOAD_STATUS_CODE says otherwise (an HTTP mapping concern). */
  overload: { http: 529, httpReason: 'Overloaded', grpc: GrpcStatus.UNAVAILABLE },
} as const satisfies Record<string, ErrorStatuses>;

export type ErrorKind = keyof typeof ERROR_KINDS;

/** All a client learns of an unexpected error; the frontends log the real one. */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

export class DynamoError extends Error {
  readonly kind: ErrorKind;
  readonly httpStatus: number;
  readonly grpcStatus: number;
  readonly details?: Record<string, unknown>;

  constructor(kind: ErrorKind, message: string, details?: Record<string, unknown>) {
    super(message);
    // Each subclass's own name (ValidationError, ...) in stack traces and logs.
    this.name = new.target.name;
    this.kind = kind;
    this.httpStatus = ERROR_KINDS[kind].http;
    this.grpcStatus = ERROR_KINDS[kind].grpc;
    this.details = details;
  }
}

/** 400: the request is malformed or breaks a rule. The message names the field. */
export class ValidationError extends DynamoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('validation', message, details);
  }
}

export class UnauthenticatedError extends DynamoError {
  constructor(message: string) {
    super('unauthenticated', message);
  }
}

export class ForbiddenError extends DynamoError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class NotFoundError extends DynamoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('not_found', message, details);
  }
}

export class MethodNotAllowedError extends DynamoError {
  constructor(message: string) {
    super('method_not_allowed', message);
  }
}

export class PayloadTooLargeError extends DynamoError {
  constructor(message: string) {
    super('payload_too_large', message);
  }
}

export class RequestTimeoutError extends DynamoError {
  constructor(message: string) {
    super('request_timeout', message);
  }
}

export class UnsupportedMediaTypeError extends DynamoError {
  constructor(message = 'Expected request with Content-Type application/json') {
    super('unsupported_media_type', message);
  }
}

export class UnprocessableError extends DynamoError {
  constructor(message: string) {
    super('unprocessable', message);
  }
}

export class ConflictError extends DynamoError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class BadGatewayError extends DynamoError {
  constructor(message: string) {
    super('bad_gateway', message);
  }
}

export class CancelledError extends DynamoError {
  constructor(message = 'Request cancelled') {
    super('cancelled', message);
  }
}

export class InternalError extends DynamoError {
  constructor(message = INTERNAL_ERROR_MESSAGE) {
    super('internal', message);
  }
}

export class NotImplementedError extends DynamoError {
  constructor(message: string) {
    super('not_implemented', message);
  }
}

/** 503: nothing can serve the request right now (no workers, draining, model not ready). */
export class UnavailableError extends DynamoError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

/**
 * 503: the worker serving a request was lost: unreachable, its connection refused, reset or closed
 * before the stream completed, or silent past the stall timeout. The one signal the routing layers
 * act on: the instance leaves routing, and the request may be re-sent to another worker.
 */
export class WorkerLostError extends UnavailableError {
  constructor(
    message: string,
    /** The lost instance, when the layer that noticed knows it. */
    readonly instanceId?: bigint,
  ) {
    super(message);
  }
}

/**
 * A service this process depends on (etcd, NATS, the Kubernetes API) cannot be reached. Carries
 * what was tried and how to fix it, so startup can say both in one line.
 */
export class ServiceUnreachableError extends UnavailableError {
  constructor(
    /** e.g. `etcd`, `NATS`, `the Kubernetes API`. */
    readonly service: string,
    /** What was tried: a URL or a list of them. */
    readonly endpoint: string,
    /** The underlying failure, one line. */
    readonly reason: string,
    /** What the operator can do about it. */
    readonly fix: string,
  ) {
    super(`cannot reach ${service} at ${endpoint} (${reason})`);
  }
}

/** Every worker is busy. */
export class OverloadedError extends DynamoError {
  constructor(message = 'Service temporarily overloaded', details?: Record<string, unknown>) {
    super('overload', message, details);
  }
}

export function isDynamoError(err: unknown): err is DynamoError {
  return err instanceof DynamoError;
}

/** 503 for a model that is known but has no ready worker. */
export function modelNotReadyError(model: string): UnavailableError {
  return new UnavailableError(
    `Model \`${model}\` is not ready to serve requests yet. The deployment may still be starting up or is not fully provisioned. Please retry shortly.`,
  );
}
