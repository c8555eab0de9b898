import type { FastifyInstance } from 'fastify';
import type { ModelManager, ServedModel } from '../../../models/index.js';
import { modelNotReadyError, UnavailableError } from '../../../protocols/index.js';
import { documented, INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { sendError } from '../server.js';
import type { HttpServiceState } from '../service-state.js';

export interface AdminRouteOptions {
  modelsPath: string;
  healthPath: string;
  livePath: string;
  /** DYN_CONTEXT_WINDOW: overrides the advertised context window of every model. */
  contextWindow?: number;
  /** DYN_MAX_OUTPUT_TOKENS: advertised as max_output_tokens. */
  maxOutputTokens?: number;
}

function modelObject(m: ServedModel, opts: AdminRouteOptions): Record<string, unknown> {
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

const STATUS = (example: string) => ({ type: 'object', properties: { status: { type: 'string', example }, message: { type: 'string' } }, additionalProperties: true });

const LIVE_DOC: RouteDoc = {
  summary: 'Liveness',
  tag: 'Service',
  responses: { 200: json('The process is up', STATUS('live')), 503: json('Shutting down', STATUS('shutting_down')) },
};

const HEALTH_DOC: RouteDoc = {
  summary: 'Readiness, with the worker instances in use',
  tag: 'Service',
  responses: { 200: json('Serving', STATUS('healthy')), 503: json('Waiting for initial workers, draining or stopping', STATUS('unhealthy')) },
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

/** `/v1/models`, `/v1/models/{id}`, `/health` and `/live`. */
export function registerAdminRoutes(
  app: FastifyInstance,
  state: HttpServiceState,
  models: ModelManager,
  opts: AdminRouteOptions,
): void {
  app.get(opts.livePath, documented(LIVE_DOC), async (_req, reply) => {
    if (state.phase === 'stopping') {
      return reply.code(503).send({ status: 'shutting_down', message: 'Service is shutting down' });
    }
    return { status: 'live', message: 'Service is live' };
  });

  app.get(opts.healthPath, documented(HEALTH_DOC), async (_req, reply) => {
    if (state.phase !== 'serving') {
      return reply.code(503).send({ status: 'unhealthy', message: 'Service is not ready' });
    }
    if (!models.startup.ready) return reply.code(503).send({ status: 'unhealthy', message: models.startup.reason() });
    const endpoints = new Set<string>();
    const instances: Record<string, unknown>[] = [];
    for (const m of models.list()) {
      const { namespace, component, endpoint } = m.endpoint;
      for (const id of m.router.instanceIds) {
        endpoints.add(`dyn://${namespace}.${component}.${endpoint}`);
        instances.push({ namespace, component, endpoint, instance_id: id.toString(16) });
      }
    }
    return { status: 'healthy', endpoints: [...endpoints].sort(), instances };
  });

  app.get(opts.modelsPath, documented(MODELS_DOC), async (_req, reply) => {
    if (state.phase !== 'serving') return sendError(reply, new UnavailableError('Service is not ready'), state.overloadStatus);
    if (!models.startup.ready) return sendError(reply, new UnavailableError(models.startup.reason()), state.overloadStatus);
    return { object: 'list', data: models.listReady().map((m) => modelObject(m, opts)) };
  });

  app.get(`${opts.modelsPath}/*`, documented(MODEL_DOC), async (req, reply) => {
    try {
      const id = decodeURIComponent((req.params as { '*': string })['*']);
      const m = models.get(id);
      if (m.router.instanceIds.length === 0) {
        throw modelNotReadyError(m.name);
      }
      return modelObject(m, opts);
    } catch (err) {
      return sendError(reply, err, state.overloadStatus);
    }
  });
}
