// GET /health: readiness (503 while waiting for the initial workers, draining or stopping), with
// the worker instances in use.
import type { HttpRoute } from '../http-route.js';
import { documented, json, type RouteDoc } from '../openapi/index.js';
import { STATUS } from './status-doc.js';

const HEALTH_DOC: RouteDoc = {
  summary: 'Readiness, with the worker instances in use',
  tag: 'Service',
  responses: { 200: json('Serving', STATUS('healthy')), 503: json('Waiting for initial workers, draining or stopping', STATUS('unhealthy')) },
};

export const HEALTH_ROUTE: HttpRoute = {
  register(app, path, { state, models }) {
    app.get(path, documented(HEALTH_DOC), async (_req, reply) => {
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
  },
};
