import { ValidationError, type AgentHints, type NvExt } from '../../protocols/index.js';

// Routing headers set `nvext`'s routing fields and win over the body's (reference/http.md §1.1),
// whether they come as HTTP headers or as gRPC call metadata. They are read into their own typed
// value, beside the request body, and meet the body's nvext only when the engine request is built.
// Worker ids are u64 lease ids, so they stay decimal strings: a JSON number would round them above 2^53.

/** A request's header (lower-case name): its value, or its values when repeated; undefined when absent. */
export type HeaderLookup = (name: string) => string | readonly string[] | undefined;

const U32_MAX = 4294967295;

/** The header's trimmed value (its first when repeated); undefined when absent or blank. Aliases chain with `??`. */
function header(headers: HeaderLookup, name: string): string | undefined {
  const v = headers(name);
  const value = typeof v === 'string' ? v : v?.[0];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
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
    (header(headers, 'thread-id') ?? header(headers, 'x-session-id'))
  );
}

/** The `nvext` fields routing headers can set. */
export type HeaderRouting = Pick<
  NvExt,
  'backend_instance_id' | 'decode_worker_id' | 'prefill_worker_id' | 'dp_rank' | 'prefill_dp_rank' | 'agent_hints' | 'session_id' | 'cache_salt' | 'policy_class'
>;

/** A request without routing headers. */
export const NO_HEADER_ROUTING: Readonly<HeaderRouting> = Object.freeze({});

/** The `nvext` fields the request's routing headers set (only those it sends); throws on a malformed value. */
export function routingFromHeaders(headers: HeaderLookup): HeaderRouting {
  const out: HeaderRouting = {};
  const worker = header(headers, 'x-dynamo-worker-instance-id') ?? header(headers, 'x-worker-instance-id');
  if (worker !== undefined) {
    const id = unsigned('x-dynamo-worker-instance-id', worker, 2n ** 64n - 1n);
    out.backend_instance_id = id;
    out.decode_worker_id = id;
  }
  const prefill = header(headers, 'x-dynamo-prefill-instance-id') ?? header(headers, 'x-prefill-instance-id');
  if (prefill !== undefined) out.prefill_worker_id = unsigned('x-dynamo-prefill-instance-id', prefill, 2n ** 64n - 1n);
  const dpRank = header(headers, 'x-dynamo-dp-rank') ?? header(headers, 'x-dp-rank') ?? header(headers, 'x-data-parallel-rank');
  if (dpRank !== undefined) out.dp_rank = Number(unsigned('x-dynamo-dp-rank', dpRank, BigInt(U32_MAX)));
  const prefillDpRank = header(headers, 'x-dynamo-prefill-dp-rank') ?? header(headers, 'x-prefill-dp-rank');
  if (prefillDpRank !== undefined) {
    const rank = Number(unsigned('x-dynamo-prefill-dp-rank', prefillDpRank, BigInt(U32_MAX)));
    // u32::MAX is upstream's "unset".
    if (rank !== U32_MAX) out.prefill_dp_rank = rank;
  }
  const priority = header(headers, 'x-dynamo-request-priority');
  const strict = header(headers, 'x-dynamo-request-strict-priority');
  if (priority !== undefined || strict !== undefined) {
    const hints: AgentHints = {};
    if (priority !== undefined) hints.priority = signed32('x-dynamo-request-priority', priority);
    if (strict !== undefined) hints.strict_priority = Number(unsigned('x-dynamo-request-strict-priority', strict, BigInt(U32_MAX)));
    out.agent_hints = hints;
  }
  const session = sessionHeader(headers);
  if (session !== undefined) out.session_id = session;
  const tenant = header(headers, 'x-tenant-id');
  if (tenant !== undefined) out.cache_salt = tenant;
  const policyClass = header(headers, 'x-dynamo-meta-policy-class');
  if (policyClass !== undefined) out.policy_class = policyClass;
  return out;
}

/** The body's nvext with the routing headers' fields over it (agent hints merged key by key); null when neither sets anything. */
export function withHeaderRouting(nvext: NvExt | null | undefined, routing: HeaderRouting): NvExt | null {
  if (Object.keys(routing).length === 0) return nvext ?? null;
  const merged: NvExt = { ...nvext, ...routing };
  if (routing.agent_hints && nvext?.agent_hints) merged.agent_hints = { ...nvext.agent_hints, ...routing.agent_hints };
  return merged;
}
