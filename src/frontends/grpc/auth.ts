// The one gRPC interceptor for API keys and the admin switch (the HTTP side has its twin in
// access-hook.ts over the same KeyCheck). Health and reflection stay open so probes and grpcurl work;
// every other call needs `authorization: Bearer <key>` metadata when keys are configured; the
// repository load/unload calls are the admin surface, absent (UNIMPLEMENTED) when it is turned off.

import * as grpc from '@grpc/grpc-js';
import { bearerToken, NotImplementedError, UnauthenticatedError, type DynamoError, type KeyCheck } from '../../protocols/index.js';
import type { GrpcMetrics, GrpcType, MethodMetrics } from './grpc-metrics.js';

export interface GrpcAccess {
  keys: KeyCheck;
  /** The admin surface is served (DYN_ENABLE_FRONTEND_ADMIN_API): RepositoryModelLoad/Unload exist. */
  adminApi: boolean;
}

const OPEN_PREFIXES = ['/grpc.health.v1.Health/', '/grpc.reflection.'];
const ADMIN_METHODS = new Set(['/inference.GRPCInferenceService/RepositoryModelLoad', '/inference.GRPCInferenceService/RepositoryModelUnload']);

/** Why a call with this metadata may not proceed, or undefined when it may. */
function refusal(path: string, metadata: grpc.Metadata, access: GrpcAccess): DynamoError | undefined {
  if (ADMIN_METHODS.has(path) && !access.adminApi) {
    return new NotImplementedError(`${path.slice(path.lastIndexOf('/') + 1)} is an admin call and the admin API is off (DYN_ENABLE_FRONTEND_ADMIN_API=false or DYN_DISABLE_FRONTEND_ADMIN_API)`);
  }
  if (!access.keys.required) return undefined;
  const header = metadata.get('authorization')[0];
  const token = bearerToken(typeof header === 'string' ? header : header?.toString('utf8'));
  if (token === undefined) return new UnauthenticatedError('missing API key: send `authorization: Bearer <key>` metadata');
  if (!access.keys.accepts(token)) return new UnauthenticatedError('invalid API key');
  return undefined;
}

function callType(d: grpc.ServerMethodDefinition<unknown, unknown>): GrpcType {
  if (d.requestStream) return 'bidi_stream';
  return d.responseStream ? 'server_stream' : 'unary';
}

/** Refused calls count in the gRPC metrics like any other, with their status code. */
export function accessInterceptor(access: GrpcAccess, metrics: GrpcMetrics): grpc.ServerInterceptor {
  const byPath = new Map<string, MethodMetrics>();
  const metricsOf = (d: grpc.ServerMethodDefinition<unknown, unknown>): MethodMetrics => {
    let m = byPath.get(d.path);
    if (!m) {
      const [service = '', method = ''] = d.path.slice(1).split('/');
      m = metrics.method(service, method, callType(d));
      byPath.set(d.path, m);
    }
    return m;
  };
  return (descriptor, call) => {
    if (OPEN_PREFIXES.some((p) => descriptor.path.startsWith(p))) return new grpc.ServerInterceptingCall(call);
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            const err = refusal(descriptor.path, metadata, access);
            if (!err) return pass(metadata);
            metricsOf(descriptor).start().handled(err.grpcStatus);
            call.sendStatus({ code: err.grpcStatus, details: err.message });
          },
        }),
    });
  };
}
