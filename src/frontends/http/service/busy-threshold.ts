// `/busy_threshold` (reference/http.md §2.5): read or change a model's busy thresholds at runtime.
// This admin route answers errors as `{"error": "..."}`, not the OpenAI envelope.
import type { FastifyInstance } from 'fastify';
import type { ModelManager, ServedModel } from '../../../models/index.js';
import {
  isDynamoError,
  NotFoundError,
  PayloadTooLargeError,
  UnprocessableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../protocols/index.js';
import type { BusyThresholds } from '../../../router/index.js';
import { adminErrorReply } from '../error-envelope.js';
import type { HttpRoute } from '../http-route.js';
import { adminError, documented, json, type RouteDoc } from '../openapi/index.js';

const FIELDS = {
  active_decode_blocks_threshold: { key: 'activeDecodeBlocksThreshold', max: 1 },
  active_prefill_tokens_threshold: { key: 'activePrefillTokensThreshold', max: Infinity },
  active_prefill_tokens_threshold_frac: { key: 'activePrefillTokensThresholdFrac', max: Infinity },
} as const satisfies Record<string, { key: keyof BusyThresholds; max: number }>;

type WireField = keyof typeof FIELDS;

const NOT_JSON = 'Failed to parse the request body as JSON';

/** A body that is JSON but not the expected shape: 422. */
const schemaError = (what: string): UnprocessableError => new UnprocessableError(`${NOT_JSON}: ${what}`);

/** This route's own texts for body errors raised before it runs. */
const FRAMEWORK_ERRORS = new Map([
  ['FST_ERR_CTP_BODY_TOO_LARGE', () => new PayloadTooLargeError('Request body too large')],
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', () => new UnsupportedMediaTypeError()],
]);

/** Upstream words an unparsable body differently here than on the OpenAI routes. */
function asAdminError(err: unknown): unknown {
  if (isDynamoError(err) && err.kind === 'validation' && /JSON/.test(err.message)) {
    return new ValidationError(`${NOT_JSON}: ${err.message.replace(/^.*?: /, '')}`);
  }
  return FRAMEWORK_ERRORS.get((err as { code?: string }).code ?? '')?.() ?? err;
}

function thresholdsOf(m: ServedModel): Record<string, unknown> {
  const t = m.router.busyThresholds;
  const out: Record<string, unknown> = { model: m.name };
  for (const [wire, { key }] of Object.entries(FIELDS)) out[wire] = t[key];
  return out;
}

/** Validates a POST body into the model name and the thresholds it sets (null clears one). */
function parseUpdate(body: unknown): { model: string; changes: Partial<BusyThresholds> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw schemaError('expected a JSON object');
  const fields = body as Record<string, unknown>;
  if (typeof fields.model !== 'string') throw schemaError('missing field `model`');
  const changes: Partial<BusyThresholds> = {};
  for (const [wire, value] of Object.entries(fields)) {
    if (wire === 'model') continue;
    const spec = FIELDS[wire as WireField];
    if (!spec) throw schemaError(`unknown field \`${wire}\``);
    if (value !== null && typeof value !== 'number') throw schemaError(`\`${wire}\` must be a number or null`);
    if (value !== null && (!Number.isFinite(value) || value < 0 || value > spec.max)) {
      throw new ValidationError(spec.max === 1 ? `${wire} must be between 0 and 1` : `${wire} must be >= 0`);
    }
    changes[spec.key] = value;
  }
  return { model: fields.model, changes };
}

/** One model's thresholds, as this route reads and echoes them. */
const THRESHOLDS_SCHEMA = {
  type: 'object',
  required: ['model'],
  properties: {
    model: { type: 'string' },
    ...Object.fromEntries(
      Object.entries(FIELDS).map(([wire, { max }]) => [wire, { type: 'number', minimum: 0, ...(max === Infinity ? {} : { maximum: max }), nullable: true }]),
    ),
  },
};

const ERRORS = {
  400: adminError('A threshold out of range, or a body that is not JSON'),
  404: adminError('The model is not discovered'),
  422: adminError('JSON of the wrong shape'),
};

const GET_DOC: RouteDoc = {
  summary: "Every model's busy thresholds",
  tag: 'Admin',
  responses: { 200: json('The thresholds', { type: 'object', properties: { thresholds: { type: 'array', items: THRESHOLDS_SCHEMA } } }) },
};

const POST_DOC: RouteDoc = {
  summary: "Set a model's busy thresholds (null clears one; only `model` reads them)",
  tag: 'Admin',
  body: { ...THRESHOLDS_SCHEMA, example: { model: 'Qwen/Qwen3-0.6B', active_decode_blocks_threshold: 0.9 } },
  responses: { 200: json("The model's thresholds after the change", THRESHOLDS_SCHEMA), ...ERRORS },
};

/** In a scope of its own, for its error shape; left out with DYN_DISABLE_FRONTEND_ADMIN_API (it answers 404). */
export const BUSY_THRESHOLD_ROUTE: HttpRoute = {
  register(app, path, { models, options }) {
    if (options.disableAdminApi) return;
    void app.register(async (scope) => busyThresholdScope(scope, models, path));
  },
};

function busyThresholdScope(scope: FastifyInstance, models: ModelManager, path: string): void {
  scope.setErrorHandler((err: unknown, req, reply) => {
    const mapped = asAdminError(err);
    const { status, body } = adminErrorReply(mapped);
    if (!isDynamoError(mapped) && status >= 500) req.log.error({ err }, 'unhandled error in %s %s', req.method, req.url);
    return reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
  });

  scope.get(path, documented(GET_DOC), async () => ({ thresholds: models.list().map(thresholdsOf) }));

  scope.post(path, documented(POST_DOC), async (req) => {
    const { model, changes } = parseUpdate(req.body);
    const m = models.list().find((candidate) => candidate.name === model);
    if (!m) throw new NotFoundError(`Model '${model}' not found. Thresholds can only be set for discovered models.`);
    m.router.busyThresholds = { ...m.router.busyThresholds, ...changes };
    return thresholdsOf(m);
  });
}
