// One error hierarchy for the whole product. Each error knows its HTTP status and gRPC status code;
// frontends map them once and never format error bodies by hand.

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

/** The `error_type` label of request metrics, also the stable machine-readable code. */
export type ErrorKind =
  | 'validation'
  | 'not_found'
  | 'overload'
  | 'unavailable'
  | 'cancelled'
  | 'response_timeout'
  | 'internal'
  | 'not_implemented'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'unauthenticated';

export class DynamoError extends Error {
  readonly kind: ErrorKind;
  readonly httpStatus: number;
  readonly grpcStatus: number;
  readonly details?: Record<string, unknown>;

  constructor(
    kind: ErrorKind,
    message: string,
    httpStatus: number,
    grpcStatus: number,
    details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DynamoError';
    this.kind = kind;
    this.httpStatus = httpStatus;
    this.grpcStatus = grpcStatus;
    this.details = details;
  }
}

/** 400: the request is malformed or breaks a rule. The message names the field. */
export class ValidationError extends DynamoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('validation', message, 400, GrpcStatus.INVALID_ARGUMENT, details);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends DynamoError {
  constructor(message: string) {
    super('not_found', message, 404, GrpcStatus.NOT_FOUND);
    this.name = 'NotFoundError';
  }
}

export class NotImplementedError extends DynamoError {
  constructor(message: string) {
    super('not_implemented', message, 501, GrpcStatus.UNIMPLEMENTED);
    this.name = 'NotImplementedError';
  }
}

/** 503: nothing can serve the request right now (no workers, draining, model not ready). */
export class UnavailableError extends DynamoError {
  constructor(message: string) {
    super('unavailable', message, 503, GrpcStatus.UNAVAILABLE);
    this.name = 'UnavailableError';
  }
}

/** 529 by default: every worker is busy. */
export class OverloadedError extends DynamoError {
  constructor(message = 'Service temporarily overloaded', httpStatus = 529, details?: Record<string, unknown>) {
    super('overload', message, httpStatus, GrpcStatus.UNAVAILABLE, details);
    this.name = 'OverloadedError';
  }
}

export class CancelledError extends DynamoError {
  constructor(message = 'Request cancelled') {
    super('cancelled', message, 499, GrpcStatus.CANCELLED);
    this.name = 'CancelledError';
  }
}

export class InternalError extends DynamoError {
  constructor(message = 'Internal server error') {
    super('internal', message, 500, GrpcStatus.INTERNAL);
    this.name = 'InternalError';
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
