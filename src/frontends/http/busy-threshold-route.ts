// `/busy_threshold` (reference/http.md §2.5): read or change a model's busy thresholds at runtime.
// This admin route answers errors as `{"error": "..."}`, not the OpenAI envelope.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ModelManager, ServedModel } from '../../models/index.js';
import { DynamoError, ValidationError } from '../../protocols/index.js';
import type { BusyThresholds } from '../../router/index.js';

const FIELDS = {
  active_decode_blocks_threshold: { key: 'activeDecodeBlocksThreshold', max: 1 },
  active_prefill_tokens_threshold: { key: 'activePrefillTokensThreshold', max: Infinity },
  active_prefill_tokens_threshold_frac: { key: 'activePrefillTokensThresholdFrac', max: Infinity },
} as const satisfies Record<string, { key: keyof BusyThresholds; max: number }>;

type WireField = keyof typeof FIELDS;

/** A body that is JSON but not the expected shape: 422. */
class SchemaError extends DynamoError {
  constructor(what: string) {
    super('validation', `Failed to parse the request body as JSON: ${what}`, 422, 3);
  }
}

function thresholdsOf(m: ServedModel): Record<string, unknown> {
  const t = m.router.busyThresholds;
  const out: Record<string, unknown> = { model: m.name };
  for (const [wire, { key }] of Object.entries(FIELDS)) out[wire] = t[key];
  return out;
}

function sendAdminError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ error: message }));
}

/** Validates a POST body into the model name and the thresholds it sets (null clears one). */
function parseUpdate(body: unknown): { model: string; changes: Partial<BusyThresholds> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new SchemaError('expected a JSON object');
  const fields = body as Record<string, unknown>;
  if (typeof fields.model !== 'string') throw new SchemaError('missing field `model`');
  const changes: Partial<BusyThresholds> = {};
  for (const [wire, value] of Object.entries(fields)) {
    if (wire === 'model') continue;
    const spec = FIELDS[wire as WireField];
    if (!spec) throw new SchemaError(`unknown field \`${wire}\``);
    if (value !== null && typeof value !== 'number') throw new SchemaError(`\`${wire}\` must be a number or null`);
    if (value !== null && (!Number.isFinite(value) || value < 0 || value > spec.max)) {
      throw new ValidationError(spec.max === 1 ? `${wire} must be between 0 and 1` : `${wire} must be >= 0`);
    }
    changes[spec.key] = value;
  }
  return { model: fields.model, changes };
}

export function registerBusyThresholdRoute(app: FastifyInstance, models: ModelManager, path = '/busy_threshold'): void {
  void app.register(async (scope) => {
    scope.setErrorHandler((err: unknown, _req, reply) => {
      const e = err as { code?: string; statusCode?: number; message?: string };
      if (err instanceof SchemaError) return sendAdminError(reply, 422, err.message);
      if (err instanceof DynamoError && err.httpStatus === 400 && /JSON/.test(err.message)) {
        return sendAdminError(reply, 400, `Failed to parse the request body as JSON: ${err.message.replace(/^.*?: /, '')}`);
      }
      if (err instanceof DynamoError) return sendAdminError(reply, err.httpStatus, err.message);
      if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendAdminError(reply, 413, 'Request body too large');
      if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendAdminError(reply, 415, 'Expected request with Content-Type application/json');
      return sendAdminError(reply, e.statusCode && e.statusCode < 500 ? e.statusCode : 500, e.message ?? 'Internal server error');
    });

    scope.get(path, async () => ({ thresholds: models.list().map(thresholdsOf) }));

    scope.post(path, async (req, reply) => {
      const { model, changes } = parseUpdate(req.body);
      const m = models.list().find((candidate) => candidate.name === model);
      if (!m) return sendAdminError(reply, 404, `Model '${model}' not found. Thresholds can only be set for discovered models.`);
      m.router.busyThresholds = { ...m.router.busyThresholds, ...changes };
      return thresholdsOf(m);
    });
  });
}
