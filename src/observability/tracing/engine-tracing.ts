// Spans of a worker's engine requests, from the engine request channel
// (protocols/engine-events.ts): one `<engine>.generate` span per request under the frontend's
// `client_request` (the trace context came in the request-plane headers), with `prefill` and
// `decode` children split at the first output.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ENGINE_REQUEST_CHANNEL_NAME, type EngineRequestEvent } from '../../protocols/index.js';
import { epochMs, remoteParent, under } from './span-context.js';

/** Traces every engine request of the process until the returned function is called. */
export function traceEngineRequests(tracer: Tracer): () => void {
  const listener = (message: unknown): void => record(tracer, message as EngineRequestEvent);
  subscribe(ENGINE_REQUEST_CHANNEL_NAME, listener);
  return () => unsubscribe(ENGINE_REQUEST_CHANNEL_NAME, listener);
}

function record(tracer: Tracer, e: EngineRequestEvent): void {
  const prefillEnd = e.firstOutputAt ?? e.endedAt;
  const span = tracer.startSpan(
    `${e.engine}.generate`,
    {
      kind: SpanKind.SERVER,
      startTime: epochMs(e.startedAt),
      attributes: {
        request_id: e.requestId,
        dp_rank: e.dpRank,
        'prefill.prompt_tokens': e.promptTokens,
        'prefill.cached_tokens': e.cachedTokens,
        'prefill.duration_ms': Number((prefillEnd - e.startedAt).toFixed(3)),
        'decode.output_tokens': e.outputTokens,
        'decode.duration_ms': Number((e.endedAt - prefillEnd).toFixed(3)),
      },
    },
    remoteParent(e.trace),
  );
  if (e.finishReason !== null) span.setAttribute('finish_reason', e.finishReason);
  if (e.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: e.error instanceof Error ? e.error.message : String(e.error) });
  const parent = under(span);
  tracer.startSpan('prefill', { startTime: epochMs(e.startedAt), attributes: { prompt_tokens: e.promptTokens, cached_tokens: e.cachedTokens } }, parent).end(epochMs(prefillEnd));
  if (e.firstOutputAt !== null) {
    tracer.startSpan('decode', { startTime: epochMs(e.firstOutputAt), attributes: { output_tokens: e.outputTokens } }, parent).end(epochMs(e.endedAt));
  }
  span.end(epochMs(e.endedAt));
}
