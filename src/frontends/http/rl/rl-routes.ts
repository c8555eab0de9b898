// The four routes of the RL admin facade, as one table: what each takes (query or body), the body
// it fans out to every worker, and the answer it builds from the workers' results. A fan-out where
// every worker answered `ok` is a 200; any worker that failed or refused makes it a 502 with every
// worker's status, so the orchestrator can retry, drain or rebuild.
import type { FastifyRequest } from 'fastify';
import {
  isPauseMode,
  UnprocessableError,
  ValidationError,
  workerEntry,
  workerSucceeded,
  type RlFanoutReport,
  type RlOp,
} from '../../../protocols/index.js';

type Body = Record<string, unknown>;

/** One route: the op it fans out, the body it sends, and its answers. */
export interface RlRoute {
  op: RlOp;
  /** The request's input, checked: what the answers repeat and what the workers get. */
  input(req: FastifyRequest): { workerBody: Body; echo: Body };
  /** What the 200 adds to `status: ok` besides `membership_epoch` and `workers`. */
  ok(echo: Body): Body;
  /** What the 502 adds to `status: error`. */
  failed(echo: Body): Body;
  /** The log line of a fan-out every worker took. */
  done: string;
}

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request's JSON object body. */
function objectBody(req: FastifyRequest): Body {
  const body = req.body;
  if (body === undefined || body === null) throw new UnprocessableError('a JSON object body is required');
  if (!isObject(body)) throw new UnprocessableError('the body must be a JSON object');
  return body;
}

/** `?clear_cache=true|false`. */
function queryBool(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ValidationError(`invalid query parameter \`${name}\`: expected true or false`);
}

const backendOf = (transport: unknown): string => (isObject(transport) && typeof transport.backend === 'string' ? transport.backend : '');

/** An unload needs no transport (nothing is read); every other update names where its weights are. */
function isLoraUnload(target: unknown): boolean {
  return isObject(target) && target.kind === 'lora' && target.op === 'unload';
}

function updateInput(req: FastifyRequest): { workerBody: Body; echo: Body } {
  const body = objectBody(req);
  const { version, target, transport, pause_mode: pauseMode, clear_cache: clearCache } = body;
  if (typeof version !== 'string') throw new UnprocessableError('`version` must be a string');
  if (target === undefined) throw new UnprocessableError('missing field `target`');
  if (transport === undefined && !isLoraUnload(target)) throw new UnprocessableError('missing field `transport`');
  if (pauseMode !== undefined && pauseMode !== null && typeof pauseMode !== 'string') throw new UnprocessableError('`pause_mode` must be a string');
  if (clearCache !== undefined && clearCache !== null && typeof clearCache !== 'boolean') throw new UnprocessableError('`clear_cache` must be a boolean');
  const workerBody: Body = { version, target, transport: transport ?? null };
  if (typeof pauseMode === 'string') workerBody.pause_mode = pauseMode;
  if (typeof clearCache === 'boolean') workerBody.clear_cache = clearCache;
  return { workerBody, echo: { version, backend: backendOf(transport) } };
}

export const RL_ROUTES: Readonly<Record<'pause' | 'resume' | 'init_transport' | 'update_weights', RlRoute>> = {
  pause: {
    op: 'pause',
    input(req) {
      const query = (req.query ?? {}) as Record<string, unknown>;
      const mode = query.mode ?? 'keep';
      if (!isPauseMode(mode)) throw new ValidationError('invalid query parameter `mode`: expected keep, wait or abort');
      const clearCache = queryBool(query.clear_cache, 'clear_cache');
      return { workerBody: { mode, clear_cache: clearCache }, echo: { mode, clear_cache: clearCache } };
    },
    ok: (echo) => ({ mode: echo.mode, clear_cache: echo.clear_cache }),
    failed: () => ({}),
    done: 'RL pause: all workers paused',
  },
  resume: {
    op: 'resume',
    input: () => ({ workerBody: {}, echo: {} }),
    ok: () => ({}),
    failed: () => ({}),
    done: 'RL resume: all workers resumed',
  },
  init_transport: {
    op: 'init_transport',
    input(req) {
      const body = objectBody(req);
      const backend = typeof body.backend === 'string' ? body.backend : '';
      const transportId = typeof body.transport_id === 'string' ? body.transport_id : backend;
      return { workerBody: body, echo: { transport_id: transportId, backend } };
    },
    ok: (echo) => ({ transport_id: echo.transport_id, backend: echo.backend, ready: true }),
    failed: (echo) => ({ transport_id: echo.transport_id, backend: echo.backend }),
    done: 'RL init_transport: all workers ready',
  },
  update_weights: {
    op: 'update_weights',
    input: updateInput,
    ok: (echo) => ({ applied_weight_version: echo.version, backend: echo.backend }),
    failed: (echo) => ({ stage: 'weight_transport_update', backend: echo.backend }),
    done: 'RL update_weights: all workers updated',
  },
};

/** The answer to a finished fan-out: its status and body. */
export function rlAnswer(route: RlRoute, echo: Body, report: RlFanoutReport): { status: number; body: Body; ok: boolean } {
  const workers = report.workers.map(workerEntry);
  const ok = report.workers.length > 0 && report.workers.every(workerSucceeded);
  const body = ok
    ? { status: 'ok', ...route.ok(echo), membership_epoch: report.epoch, workers }
    : { status: 'error', ...route.failed(echo), membership_epoch: report.epoch, workers };
  return { status: ok ? 200 : 502, body, ok };
}
