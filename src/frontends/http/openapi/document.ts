// `/openapi.json` (reference/http.md §2.6). The document is generated from the schemas the routes
// register with (route-docs.ts), so it lists every route at its configured path: its plugin goes in
// before any route, and collects the routes added after it.
import swagger from '@fastify/swagger';
import type { HttpRoute } from '../http-route.js';
import { HIDDEN } from './route-docs.js';

export const OPENAPI_ROUTE: HttpRoute = {
  collectsRoutes: true,
  register(app, path, { options }) {
    void app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'NVIDIA Dynamo OpenAI Frontend',
          description: 'OpenAI-compatible inference API of dynamo-ts. Errors before a stream starts are flat `{message, type, code}` objects.',
          version: options.version,
        },
      },
    });
    app.get(path, HIDDEN, async (_req, reply) => reply.header('content-type', 'application/json').send(JSON.stringify(app.swagger())));
  },
};
