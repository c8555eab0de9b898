// GET /v1/models and /v1/models/{id}: the served models with ready workers, as OpenAI lists them;
// DYN_CONTEXT_WINDOW and DYN_MAX_OUTPUT_TOKENS are advertised with each.
import type { ServedModel } from '../../../models/index.js';
import { modelNotReadyError, UnavailableError } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { documented, INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { sendError } from '../server.js';
import type { HttpServiceOptions } from '../service-options.js';

type Advertised = Pick<HttpServiceOptions, 'contextWindow' | 'maxOutputTokens'>;

function modelObject(m: ServedModel, opts: Advertised): Record<string, unknown> {
  const obj: Record<string, unknown> = { id: m.name, object: 'model', created: m.created, owned_by: 'nvidia' };
  const window = opts.contextWindow ?? m.card.contextLength;
  if (window) obj.context_window = window;
  if (opts.maxOutputTokens) obj.max_output_tokens = opts.maxOutputTokens;
  return obj;
}

const MODEL_OBJECT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['model'] },
    created: { type: 'integer' },
    owned_by: { type: 'string' },
    context_window: { type: 'integer' },
    max_output_tokens: { type: 'integer' },
  },
};

const MODELS_DOC: RouteDoc = {
  summary: 'List the models with ready workers',
  tag: 'OpenAI',
  responses: {
    200: json('The models', { type: 'object', properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: MODEL_OBJECT } } }),
    503: INFERENCE_ERRORS[503]!,
  },
};

const MODEL_DOC: RouteDoc = {
  summary: 'One model (its name may contain slashes)',
  tag: 'OpenAI',
  params: { type: 'object', properties: { '*': { type: 'string', description: 'the model name, e.g. Qwen/Qwen3-0.6B' } } },
  responses: { 200: json('The model', MODEL_OBJECT), 404: INFERENCE_ERRORS[404]!, 503: INFERENCE_ERRORS[503]! },
};

export const MODELS_ROUTE: HttpRoute = {
  register(app, path, { state, models, options }) {
    app.get(path, documented(MODELS_DOC), async (_req, reply) => {
      if (state.phase !== 'serving') return sendError(reply, new UnavailableError('Service is not ready'), state.overloadStatus);
      if (!models.startup.ready) return sendError(reply, new UnavailableError(models.startup.reason()), state.overloadStatus);
      return { object: 'list', data: models.listReady().map((m) => modelObject(m, options)) };
    });

    app.get(`${path}/*`, documented(MODEL_DOC), async (req, reply) => {
      try {
        const id = decodeURIComponent((req.params as { '*': string })['*']);
        const m = models.get(id);
        if (m.router.instanceIds.length === 0) {
          throw modelNotReadyError(m.name);
        }
        return modelObject(m, options);
      } catch (err) {
        return sendError(reply, err, state.overloadStatus);
      }
    });
  },
};
