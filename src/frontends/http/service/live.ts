// GET /live: whether the process is up (503 once it is stopping).
import type { HttpRoute } from '../http-route.js';
import { documented, json, type RouteDoc } from '../openapi/index.js';
import { STATUS } from './status-doc.js';

const LIVE_DOC: RouteDoc = {
  summary: 'Liveness',
  tag: 'Service',
  responses: { 200: json('The process is up', STATUS('live')), 503: json('Shutting down', STATUS('shutting_down')) },
};

export const LIVE_ROUTE: HttpRoute = {
  register(app, path, { state }) {
    app.get(path, documented(LIVE_DOC), async (_req, reply) => {
      if (state.phase === 'stopping') {
        return reply.code(503).send({ status: 'shutting_down', message: 'Service is shutting down' });
      }
      return { status: 'live', message: 'Service is live' };
    });
  },
};
