// GET /metrics: the process's registry in Prometheus text (both frontends count into it).
import type { HttpRoute } from '../http-route.js';
import { documented, type RouteDoc } from '../openapi/index.js';

const METRICS_DOC: RouteDoc = {
  summary: 'Prometheus metrics',
  tag: 'Service',
  responses: { 200: { description: 'Prometheus text exposition', content: { 'text/plain': { type: 'string' } } } },
};

export const METRICS_ROUTE: HttpRoute = {
  register(app, path, { options: { metrics } }) {
    app.get(path, documented(METRICS_DOC), async (_req, reply) => reply.header('content-type', metrics.contentType).send(await metrics.render()));
  },
};
