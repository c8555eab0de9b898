/** W3C `traceparent`: version-traceid-parentid-flags, lower-case hex, all-zero ids invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The trace id of a `traceparent` header, or undefined when it is absent or malformed. */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value ? TRACEPARENT.exec(value.trim()) : null;
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return m[2];
}
