import * as grpc from '@grpc/grpc-js';
import { DynamoError, GrpcStatus } from '../../protocols/index.js';

/** The one place errors become gRPC statuses: a DynamoError keeps its own code and text. */
export function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof DynamoError) return { code: err.grpcStatus, details: err.message };
  return { code: GrpcStatus.INTERNAL, details: err instanceof Error ? err.message : String(err) };
}

export const STATUS_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(grpc.status).filter(([, v]) => typeof v === 'number').map(([k, v]) => [v as number, k]),
);
