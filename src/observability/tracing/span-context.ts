// W3C trace context ↔ OpenTelemetry span contexts, and request times as OTel times. The parsing is
// trace-context.ts's; spans are parented explicitly (no context manager), so several frontends and
// workers in one process never share ambient state.
import { ROOT_CONTEXT, trace, TraceFlags, type Context, type Span, type SpanContext } from '@opentelemetry/api';
import type { TraceHeaders } from '../../protocols/index.js';
import { parseTraceparent } from '../trace-context.js';

/** The context whose parent is the remote span `headers` name; the root context when there is none. */
export function remoteParent(headers: TraceHeaders | undefined): Context {
  const parsed = headers && parseTraceparent(headers.traceparent);
  if (!parsed) return ROOT_CONTEXT;
  const spanContext: SpanContext = {
    traceId: parsed.traceId,
    spanId: parsed.spanId,
    traceFlags: parsed.flags & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

/** The context whose parent is `span`. */
export function under(span: Span): Context {
  return trace.setSpan(ROOT_CONTEXT, span);
}

/** `span` as the headers that carry it to the next process. */
export function headersOf(span: Span, tracestate: string | undefined): TraceHeaders {
  const c = span.spanContext();
  const flags = (c.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00';
  const traceparent = `00-${c.traceId}-${c.spanId}-${flags}`;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** A `performance.now()` reading as epoch milliseconds, the time OTel records. */
export function epochMs(performanceMs: number): number {
  return performance.timeOrigin + performanceMs;
}
