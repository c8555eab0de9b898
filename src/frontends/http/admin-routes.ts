import type { FastifyInstance } from 'fastify';
import type { ModelManager, ServedModel } from '../../models/index.js';
import { modelNotReadyError, UnavailableError } from '../../protocols/index.js';
import { sendError } from './server.js';
import type { HttpServiceState } from './service-state.js';

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

/** `/v1/models`, `/v1/models/{id}`, `/health` and `/live`. */
export function registerAdminRoutes(
  app: FastifyInstance,
  state: HttpServiceState,
  models: ModelManager,
  opts: AdminRouteOptions,
): void {
  app.get(opts.livePath, async (_req, reply) => {
    if (state.phase === 'stopping') {
      return reply.code(503).send({ status: 'shutting_down', message: 'Service is shutting down' });
    }
    return { status: 'live', message: 'Service is live' };
  });

  app.get(opts.healthPath, async (_req, reply) => {
    if (state.phase !== 'serving') {
      return reply.code(503).send({ status: 'unhealthy', message: 'Service is not ready' });
    }
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

  app.get(opts.modelsPath, async (_req, reply) => {
    if (state.phase !== 'serving') return sendError(reply, new UnavailableError('Service is not ready'), state.overloadStatus);
    return { object: 'list', data: models.listReady().map((m) => modelObject(m, opts)) };
  });

  app.get(`${opts.modelsPath}/*`, async (req, reply) => {
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
