// Every RPC goes through these wrappers: gRPC metrics and the single error → status mapping (keys
// are checked before, by the access interceptor).

import * as grpc from '@grpc/grpc-js';
import { GrpcStatus, NotImplementedError } from '../../protocols/index.js';
import type { CallTracker, GrpcMetrics } from './grpc-metrics.js';
import { callRequestId, traceparentOf } from './request-id.js';
import { toServiceError, type FailureLog } from './status.js';
import { malformedMessageError } from './tolerant-decoding.js';

export interface WrapContext {
  service: string;
  metrics: GrpcMetrics;
  /** Receives the errors whose text the client does not see. */
  logger: FailureLog;
}

export type UnaryImpl<Req, Res> = (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Res | Promise<Res>;
export type BidiImpl<Req, Res> = (call: grpc.ServerDuplexStream<Req, Res>, tracker: CallTracker) => Promise<void>;

export function wrapUnary<Req, Res>(ctx: WrapContext, method: string, impl: UnaryImpl<Req, Res>): grpc.handleUnaryCall<Req, Res> {
  const metrics = ctx.metrics.method(ctx.service, method, 'unary');
  return (call, callback) => {
    const tracker = metrics.start();
    tracker.received();
    const fail = (err: unknown): void => {
      const status = toServiceError(err, { method, requestId: () => callRequestId(call.metadata, call.request), traceparent: traceparentOf(call.metadata) }, ctx.logger);
      tracker.handled(status.code ?? GrpcStatus.INTERNAL);
      callback(status);
    };
    try {
      const malformed = malformedMessageError(call.request);
      if (malformed) throw malformed;
      Promise.resolve(impl(call.request, call)).then((res) => {
        tracker.sent();
        tracker.handled(GrpcStatus.OK);
        callback(null, res);
      }, fail);
    } catch (err) {
      fail(err);
    }
  };
}

export function wrapBidi<Req, Res>(ctx: WrapContext, method: string, impl: BidiImpl<Req, Res>): grpc.handleBidiStreamingCall<Req, Res> {
  const metrics = ctx.metrics.method(ctx.service, method, 'bidi_stream');
  return (call) => {
    const tracker = metrics.start();
    const fail = (err: unknown): void => {
      const status = toServiceError(err, { method, requestId: () => callRequestId(call.metadata), traceparent: traceparentOf(call.metadata) }, ctx.logger);
      tracker.handled(status.code ?? GrpcStatus.INTERNAL);
      if (!call.cancelled) call.emit('error', status);
    };
    impl(call, tracker).then(() => {
      tracker.handled(call.cancelled ? GrpcStatus.CANCELLED : GrpcStatus.OK);
      if (!call.cancelled) call.end();
    }, fail);
  };
}

/** Answers an RPC this server does not implement, saying so. */
export function unimplemented(ctx: WrapContext, method: string, why: string): grpc.handleUnaryCall<unknown, unknown> {
  return wrapUnary(ctx, method, () => {
    throw new NotImplementedError(`${method} is not supported by dynamo-ts: ${why}`);
  });
}
