import { ValidationError } from '../../protocols/index.js';

// Routing headers map onto `nvext` and win over the body (reference/http.md §1.1), whether they come
// as HTTP headers or as gRPC call metadata. Worker ids are u64 lease ids, so they stay decimal
// strings: a JSON number would round them above 2^53.

/** A request's header (lower-case name): its value, or its values when repeated; undefined when absent. */
export type HeaderLookup = (name: string) => string | readonly string[] | undefined;

const U32_MAX = 4294967295;

function header(headers: HeaderLookup, ...names: string[]): string | undefined {
  for (const name of names) {
    const v = headers(name);
    const value = typeof v === 'string' ? v : v?.[0];
    if (value !== undefined && value.trim() !== '') return value.trim();
  }
  return undefined;
}

function unsigned(name: string, value: string, max: bigint): string {
  if (!/^\d+$/.test(value) || BigInt(value) > max) {
    throw new ValidationError(`Validation: header ${name} must be an unsigned integer no larger than ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function signed32(name: string, value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || n < -2147483648 || n > 2147483647) {
    throw new ValidationError(`Validation: header ${name} must be a 32-bit integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * The session of session affinity: `x-dynamo-session-id`, else a coding agent's own header, in
 * upstream's order: Claude Code (its agent id wins over its session id, which must be present),
 * Codex (`thread-id`), OpenCode (`x-session-id`).
 */
function sessionHeader(headers: HeaderLookup): string | undefined {
  const claude = header(headers, 'x-claude-code-session-id');
  return (
    header(headers, 'x-dynamo-session-id') ??
    (claude === undefined ? undefined : (header(headers, 'x-claude-code-agent-id') ?? claude)) ??
    header(headers, 'thread-id', 'x-session-id')
  );
}

/** The `nvext` fields the request's routing headers set; empty when it sends none. */
export function nvextFromHeaders(headers: HeaderLookup): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const worker = header(headers, 'x-dynamo-worker-instance-id', 'x-worker-instance-id');
  if (worker !== undefined) {
    const id = unsigned('x-dynamo-worker-instance-id', worker, 2n ** 64n - 1n);
    out.backend_instance_id = id;
    out.decode_worker_id = id;
  }
  const prefill = header(headers, 'x-dynamo-prefill-instance-id', 'x-prefill-instance-id');
  if (prefill !== undefined) out.prefill_worker_id = unsigned('x-dynamo-prefill-instance-id', prefill, 2n ** 64n - 1n);
  const dpRank = header(headers, 'x-dynamo-dp-rank', 'x-dp-rank', 'x-data-parallel-rank');
  if (dpRank !== undefined) out.dp_rank = Number(unsigned('x-dynamo-dp-rank', dpRank, BigInt(U32_MAX)));
  const prefillDpRank = header(headers, 'x-dynamo-prefill-dp-rank', 'x-prefill-dp-rank');
  if (prefillDpRank !== undefined) {
    const rank = Number(unsigned('x-dynamo-prefill-dp-rank', prefillDpRank, BigInt(U32_MAX)));
    // u32::MAX is upstream's "unset".
    if (rank !== U32_MAX) out.prefill_dp_rank = rank;
  }
  const priority = header(headers, 'x-dynamo-request-priority');
  const strict = header(headers, 'x-dynamo-request-strict-priority');
  if (priority !== undefined || strict !== undefined) {
    const hints: Record<string, number> = {};
    if (priority !== undefined) hints.priority = signed32('x-dynamo-request-priority', priority);
    if (strict !== undefined) hints.strict_priority = Number(unsigned('x-dynamo-request-strict-priority', strict, BigInt(U32_MAX)));
    out.agent_hints = hints;
  }
  const session = sessionHeader(headers);
  if (session !== undefined) out.session_id = session;
  const tenant = header(headers, 'x-tenant-id');
  if (tenant !== undefined) out.cache_salt = tenant;
  return out;
}

/** Apply the routing headers to a parsed body, in place. */
export function applyRoutingHeaders(body: unknown, headers: HeaderLookup): void {
  const fromHeaders = nvextFromHeaders(headers);
  if (Object.keys(fromHeaders).length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const target = body as { nvext?: unknown };
  const nvext = target.nvext !== null && typeof target.nvext === 'object' && !Array.isArray(target.nvext) ? (target.nvext as Record<string, unknown>) : {};
  if (fromHeaders.agent_hints && nvext.agent_hints && typeof nvext.agent_hints === 'object') {
    fromHeaders.agent_hints = { ...(nvext.agent_hints as object), ...(fromHeaders.agent_hints as object) };
  }
  target.nvext = { ...nvext, ...fromHeaders };
}
