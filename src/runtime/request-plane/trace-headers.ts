// The W3C trace context as request-plane headers (upstream's `traceparent` and `tracestate` on the
// TCP frame and NATS message), so a worker's spans join the frontend's trace.
import type { TraceHeaders } from '../../protocols/index.js';

/** The frame headers that carry `trace`. */
export function traceHeaderFields(trace: TraceHeaders): Record<string, string> {
  return trace.tracestate ? { traceparent: trace.traceparent, tracestate: trace.tracestate } : { traceparent: trace.traceparent };
}

/** The trace context of a received frame's headers; undefined when it carries none. */
export function traceHeadersOf(headers: Readonly<Record<string, string>>): TraceHeaders | undefined {
  const traceparent = headers.traceparent;
  if (!traceparent) return undefined;
  const tracestate = headers.tracestate;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
