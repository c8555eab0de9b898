// GET /health: readiness (503 while waiting for the initial workers, draining or stopping), with
// the worker instances in use. While serving with a plane down (etcd, NATS, a ZMQ publisher) or a
// worker instance out of routing it stays 200 but says `degraded`, and what is.
import type { ModelManager } from '../../../models/index.js';
import type { PlaneStatusView } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { documented, json, type RouteDoc } from '../openapi/index.js';
import { STATUS } from './status-doc.js';

const HEALTH_DOC: RouteDoc = {
  summary: 'Readiness, with the worker instances in use and what is degraded',
  tag: 'Service',
  responses: {
    200: json('Serving: `healthy`, or `degraded` with a plane or a worker down (`degraded` lists them)', STATUS('healthy')),
    503: json('Waiting for initial workers, draining or stopping', STATUS('unhealthy')),
  },
};

export const HEALTH_ROUTE: HttpRoute = {
  register(app, path, { state, models, options }) {
    app.get(path, documented(HEALTH_DOC), async (_req, reply) => {
      if (state.phase !== 'serving') {
        return reply.code(503).send({ status: 'unhealthy', message: 'Service is not ready' });
      }
      if (!models.startup.ready) return reply.code(503).send({ status: 'unhealthy', message: models.startup.reason() });
      const { endpoints, instances, down } = workerInstances(models);
      const degraded = [...planeOutages(options.planes), ...down];
      const status = degraded.length > 0 ? 'degraded' : 'healthy';
      return { status, ...(degraded.length > 0 && { degraded }), endpoints, instances };
    });
  },
};

function planeOutages(planes: PlaneStatusView | undefined): Record<string, unknown>[] {
  const now = Date.now();
  return (planes?.outages() ?? []).map(({ plane, what, effect, since }) => ({
    plane,
    what,
    effect,
    since: new Date(since).toISOString(),
    down_secs: Math.round((now - since) / 100) / 10,
  }));
}

/** Every discovered instance, those out of routing marked `down`, and one line per down instance. */
function workerInstances(models: ModelManager) {
  const endpoints = new Set<string>();
  const instances: Record<string, unknown>[] = [];
  const down: Record<string, unknown>[] = [];
  for (const m of models.list()) {
    const { namespace, component, endpoint } = m.endpoint;
    const routable = new Set(m.router.instances.map((i) => i.id));
    for (const id of m.router.instanceIds) {
      endpoints.add(`dyn://${namespace}.${component}.${endpoint}`);
      const instance_id = id.toString(16);
      if (routable.has(id)) {
        instances.push({ namespace, component, endpoint, instance_id });
        continue;
      }
      instances.push({ namespace, component, endpoint, instance_id, down: true });
      down.push({ worker: instance_id, model: m.name, effect: 'out of routing until it answers again or registers again; its requests go to the other workers' });
    }
  }
  return { endpoints: [...endpoints].sort(), instances, down };
}
