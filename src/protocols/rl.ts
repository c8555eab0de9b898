// Reinforcement-learning admin operations: the envelope a worker's `rl` endpoint takes, the ops and
// their options, and the report of one fan-out over every live `rl` endpoint. Frontends (the
// admin facade) and workers (the endpoint) both speak it; the fan-out itself lives in the runtime.

/** The endpoint name every RL-capable worker registers beside its generate endpoint. */
export const RL_ENDPOINT = 'rl';

/** The operations a worker's `rl` endpoint answers. */
export const RL_OPS = ['describe', 'pause', 'resume', 'init_transport', 'update_weights'] as const;
export type RlOp = (typeof RL_OPS)[number];

/**
 * What pausing does with requests: `keep` freezes the ones in flight and continues them on resume,
 * `wait` lets them finish first, `abort` ends them at once. New requests wait for resume in every mode.
 */
export const PAUSE_MODES = ['keep', 'wait', 'abort'] as const;
export type PauseMode = (typeof PAUSE_MODES)[number];

export function isPauseMode(value: unknown): value is PauseMode {
  return typeof value === 'string' && (PAUSE_MODES as readonly string[]).includes(value);
}

/** One request to a worker's `rl` endpoint. */
export interface RlEnvelope {
  op: string;
  body: Record<string, unknown>;
}

/** A worker's answer: `status` is `ok` or `error` (with `message`); the rest depends on the op. */
export type RlWorkerPayload = { status: string; message?: string } & Record<string, unknown>;

/** One live `rl` endpoint instance, as discovery lists it. */
export interface RlWorkerTarget {
  namespace: string;
  component: string;
  endpoint: string;
  instanceId: bigint;
}

/** One worker's part of a fan-out: its answer, or why there is none. */
export interface RlWorkerResult {
  target: RlWorkerTarget;
  response?: RlWorkerPayload;
  /** The call failed before the worker answered (unreachable, timed out). */
  error?: string;
}

/** Every worker's result, with the membership snapshot the fan-out was addressed to. */
export interface RlFanoutReport {
  /** Fingerprint of the membership snapshot (equal snapshots, equal epochs). */
  epoch: number;
  workers: RlWorkerResult[];
}

/**
 * Sends one op to every live `rl` endpoint. Throws `UnavailableError` when there is none and
 * `ConflictError` when the membership changed while the calls were out; a worker that failed is
 * a result, not a throw.
 */
export interface RlFanout {
  fanout(op: RlOp, body: Record<string, unknown>): Promise<RlFanoutReport>;
}

/** The worker answered `status: ok`. */
export function workerSucceeded(result: RlWorkerResult): boolean {
  return result.error === undefined && result.response?.status === 'ok';
}

/**
 * A worker's entry in a facade answer: what it answered, or, when the call failed, an error naming
 * the instance (its id a u64: a bigint here, to be written as a JSON number).
 */
export function workerEntry(result: RlWorkerResult): Record<string, unknown> {
  if (result.response && result.error === undefined) return result.response;
  const { namespace, component, endpoint, instanceId } = result.target;
  return { status: 'error', namespace, component, endpoint, instance_id: instanceId, message: result.error ?? 'missing worker response' };
}
