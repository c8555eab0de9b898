import type { TraceHeaders } from '../protocols/index.js';

/** W3C `traceparent`: version-traceid-parentid-flags, lower-case hex, all-zero ids invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface ParsedTraceparent {
  traceId: string;
  spanId: string;
  flags: number;
}

/** A `traceparent` header's parts, or undefined when it is absent or malformed. */
export function parseTraceparent(header: string | string[] | undefined): ParsedTraceparent | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value ? TRACEPARENT.exec(value.trim()) : null;
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, flags: parseInt(m[4]!, 16) };
}

/** The trace id of a `traceparent` header, or undefined when it is absent or malformed. */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  return parseTraceparent(header)?.traceId;
}

/**
 * The W3C trace context a client sent (`traceparent` and, with it, `tracestate`); undefined when
 * the traceparent is absent or malformed, as the TraceContext propagator ignores it then.
 */
export function traceContextOf(traceparent: unknown, tracestate: unknown): TraceHeaders | undefined {
  const parent = Array.isArray(traceparent) ? (traceparent[0] as unknown) : traceparent;
  if (typeof parent !== 'string' || !traceIdOf(parent)) return undefined;
  const state = Array.isArray(tracestate) ? (tracestate as unknown[]).join(',') : tracestate;
  return typeof state === 'string' && state !== '' ? { traceparent: parent.trim(), tracestate: state } : { traceparent: parent.trim() };
}
